// The filter grammar of docs/assumptions.md ("Scans"), compiled once per scroll into a predicate.
//   expr  := and ( "or" and )*        and   := unary ( "and" unary )*
//   unary := "not" unary | "(" expr ")" | call       call := op "(" path [ "," value ] ")"

import { lookupTypeName } from "../contract/lookup-type.ts";
import { HttpError } from "./errors.ts";

export type Predicate = (record: object) => boolean;
type Scalar = string | number | boolean;

const OPERATORS = [
  "equals",
  "startsWith",
  "contains",
  "exists",
  "missing",
  "gt",
  "gte",
  "lt",
  "lte",
] as const;
type Operator = (typeof OPERATORS)[number];
const UNARY: ReadonlySet<Operator> = new Set(["exists", "missing"]);
const MAX_LENGTH = 10_000;
const MAX_DEPTH = 64;

export interface FilterOptions {
  /** Paths holding a lookup type (URI or name): compared by type name, so both forms match. */
  typePaths?: readonly string[];
  /** String comparisons respect case (the default ignores it). */
  caseSensitive?: boolean;
  /** Only a single equals(field,value) is understood; anything else is refused. */
  equalsOnly?: boolean;
  /** Only with the filter-equals-matches-missing-field fault: a record without the field matches every
   *  equals on it (the mutant `some` -> `every` over no leaves). */
  missingFieldMatchesEquals?: boolean;
}

type Token =
  | { kind: "(" | ")" | ","; at: number }
  | { kind: "word"; text: string; at: number }
  | { kind: "string"; value: string; at: number }
  | { kind: "number"; value: number; at: number }
  | { kind: "end"; at: number };

function invalid(problem: string): HttpError {
  return new HttpError(400, "invalid_filter", `filter: ${problem}. Grammar: docs/assumptions.md, "Scans"`);
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i] as string;
    const at = i + 1;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === "(" || ch === ")" || ch === ",") {
      tokens.push({ kind: ch, at });
      i++;
    } else if (ch === "'" || ch === '"') {
      let value = "";
      let j = i + 1;
      for (;;) {
        if (j >= source.length) throw invalid(`unterminated string starting at character ${at}`);
        if (source[j] === ch) {
          if (source[j + 1] === ch) {
            value += ch;
            j += 2;
            continue;
          }
          break;
        }
        value += source[j];
        j++;
      }
      tokens.push({ kind: "string", value, at });
      i = j + 1;
    } else {
      const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(source.slice(i));
      if (number && (ch === "-" || /\d/.test(ch))) {
        tokens.push({ kind: "number", value: Number(number[0]), at });
        i += number[0].length;
        continue;
      }
      const word = /^[A-Za-z_$][\w$-]*(\.[\w$-]+)*/.exec(source.slice(i));
      if (!word) throw invalid(`unexpected character ${JSON.stringify(ch)} at character ${at}`);
      tokens.push({ kind: "word", text: word[0], at });
      i += word[0].length;
    }
  }
  tokens.push({ kind: "end", at: source.length + 1 });
  return tokens;
}

function describe(token: Token): string {
  switch (token.kind) {
    case "end":
      return "the end of the filter";
    case "word":
      return `"${token.text}" at character ${token.at}`;
    case "string":
      return `the string '${token.value}' at character ${token.at}`;
    case "number":
      return `the number ${token.value} at character ${token.at}`;
    default:
      return `"${token.kind}" at character ${token.at}`;
  }
}

/** The values a dotted path reaches; arrays on the way are searched element by element. */
function collect(value: unknown, segments: readonly string[], index: number, out: unknown[]): void {
  if (Array.isArray(value)) {
    for (const element of value) collect(element, segments, index, out);
    return;
  }
  if (index === segments.length) {
    out.push(value);
    return;
  }
  if (value !== null && typeof value === "object") {
    const key = segments[index] as string;
    if (Object.hasOwn(value, key)) collect((value as Record<string, unknown>)[key], segments, index + 1, out);
  }
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

function comparison(op: "gt" | "gte" | "lt" | "lte", leaf: unknown, value: Scalar): boolean {
  let order: number;
  if (typeof leaf === "number" && typeof value === "number") order = leaf - value;
  else if (typeof leaf === "string" && typeof value === "string")
    order = leaf < value ? -1 : leaf > value ? 1 : 0;
  else if (
    typeof leaf === "number" &&
    typeof value === "string" &&
    value.trim() !== "" &&
    !Number.isNaN(Number(value))
  )
    order = leaf - Number(value);
  else return false;
  if (op === "gt") return order > 0;
  if (op === "gte") return order >= 0;
  if (op === "lt") return order < 0;
  return order <= 0;
}

function leafTest(
  op: Operator,
  value: Scalar | undefined,
  typePath: boolean,
  caseSensitive: boolean,
): (leaf: unknown) => boolean {
  const textOf = (v: Scalar) => (caseSensitive ? String(v) : String(v).toLowerCase());
  switch (op) {
    case "exists":
    case "missing":
      return (leaf) => leaf !== undefined && leaf !== null;
    case "equals": {
      const v = value as Scalar;
      if (typeof v === "number") {
        return (leaf) =>
          typeof leaf === "number" ? leaf === v : isScalar(leaf) && textOf(leaf) === textOf(v);
      }
      const wanted = typePath ? textOf(lookupTypeName(String(v))) : textOf(v);
      return (leaf) =>
        isScalar(leaf) &&
        (typePath && typeof leaf === "string" ? textOf(lookupTypeName(leaf)) : textOf(leaf)) === wanted;
    }
    case "startsWith": {
      const wanted = textOf(value as Scalar);
      return (leaf) => isScalar(leaf) && textOf(leaf).startsWith(wanted);
    }
    case "contains": {
      const wanted = textOf(value as Scalar);
      return (leaf) => isScalar(leaf) && textOf(leaf).includes(wanted);
    }
    default: {
      const v = value as Scalar;
      return (leaf) => comparison(op, leaf, v);
    }
  }
}

class Parser {
  private index = 0;
  private depth = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly options: FilterOptions,
  ) {}

  private peek(): Token {
    return this.tokens[this.index] as Token;
  }

  private next(): Token {
    return this.tokens[this.index++] as Token;
  }

  private keyword(word: string): boolean {
    const token = this.peek();
    const follower = this.tokens[this.index + 1];
    if (token.kind !== "word" || token.text.toLowerCase() !== word) return false;
    // "not(" starts a negated group; "and(" / "or(" would be an (unknown) operator call instead.
    return word === "not" || follower?.kind !== "(";
  }

  private expect(kind: "(" | ")" | ",", what: string): void {
    const token = this.next();
    if (token.kind !== kind) throw invalid(`expected ${what} but found ${describe(token)}`);
  }

  parse(): Predicate {
    if (this.options.equalsOnly) {
      const predicate = this.call();
      const token = this.peek();
      if (token.kind !== "end") {
        throw invalid(`only a single equals(field,value) is supported, but found ${describe(token)}`);
      }
      return predicate;
    }
    const predicate = this.expr();
    const token = this.peek();
    if (token.kind !== "end") throw invalid(`expected "and", "or" or the end, but found ${describe(token)}`);
    return predicate;
  }

  private expr(): Predicate {
    return this.joined("or", () => this.and(), "some");
  }

  private and(): Predicate {
    return this.joined("and", () => this.unary(), "every");
  }

  /** Operands joined by one keyword ("a or b or c"): one operand is itself; several hold when some
   *  (or) or every (and) of them holds. */
  private joined(word: string, operand: () => Predicate, holds: "some" | "every"): Predicate {
    const parts = [operand()];
    while (this.keyword(word)) {
      this.next();
      parts.push(operand());
    }
    if (parts.length === 1) return parts[0] as Predicate;
    return (record) => parts[holds]((p) => p(record));
  }

  private unary(): Predicate {
    if (++this.depth > MAX_DEPTH) throw invalid(`nested deeper than ${MAX_DEPTH} levels`);
    try {
      if (this.keyword("not")) {
        this.next();
        const inner = this.unary();
        return (record) => !inner(record);
      }
      if (this.peek().kind === "(") {
        this.next();
        const inner = this.expr();
        this.expect(")", '")"');
        return inner;
      }
      return this.call();
    } finally {
      this.depth--;
    }
  }

  private call(): Predicate {
    const name = this.next();
    if (name.kind !== "word")
      throw invalid(`expected an operator such as equals( but found ${describe(name)}`);
    const op = OPERATORS.find((o) => o.toLowerCase() === name.text.toLowerCase());
    if (op !== "equals" && this.options.equalsOnly) {
      throw invalid(`unsupported operator "${name.text}" at character ${name.at}; only equals is supported`);
    }
    if (!op) {
      throw invalid(
        `unknown operator "${name.text}" at character ${name.at}; supported operators: ${OPERATORS.join(", ")}`,
      );
    }
    this.expect("(", `"(" after ${op}`);
    const pathToken = this.next();
    if (pathToken.kind !== "word")
      throw invalid(`expected a field path in ${op}( but found ${describe(pathToken)}`);
    const path = pathToken.text;
    let value: Scalar | undefined;
    if (UNARY.has(op)) {
      this.expect(")", `")" after ${op}(${path} (${op} takes only a field)`);
    } else {
      this.expect(",", `"," and a value after ${op}(${path}`);
      const v = this.next();
      if (v.kind === "string" || v.kind === "number") value = v.value;
      else if (v.kind === "word" && (v.text === "true" || v.text === "false")) value = v.text === "true";
      else
        throw invalid(
          `expected a quoted string, a number, true or false in ${op}(${path}, ...) but found ${describe(v)}`,
        );
      this.expect(")", `")" to close ${op}(`);
    }
    const segments = path.split(".");
    const test = leafTest(
      op,
      value,
      this.options.typePaths?.includes(path) ?? false,
      this.options.caseSensitive ?? false,
    );
    const negate = op === "missing";
    return (record) => {
      const leaves: unknown[] = [];
      collect(record, segments, 0, leaves);
      const hit =
        leaves.length === 0 && op === "equals" && this.options.missingFieldMatchesEquals === true
          ? true
          : leaves.some(test);
      return negate ? !hit : hit;
    };
  }
}

/** Compiles a filter expression; throws a 400 invalid_filter naming the operator or position at fault. */
export function compileFilter(source: string, options: FilterOptions = {}): Predicate {
  if (source.length > MAX_LENGTH) throw invalid(`longer than ${MAX_LENGTH} characters`);
  return new Parser(tokenize(source), options).parse();
}
