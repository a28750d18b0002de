// The components the OpenAPI documents define alike (the error body, the scroll request, the error responses,
// the tenant and scan parameters), emitted once in src/generated/openapi/shared.ts; each document's
// `components` section is then `shared[section] & { its own }`, which has the same members as before.
import ts from "typescript";

const { factory } = ts;

export const SHARED_PATH = "src/generated/openapi/shared.ts";

const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });
const scratch = ts.createSourceFile("scratch.ts", "", ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
const print = (node: ts.Node) => printer.printNode(ts.EmitHint.Unspecified, node, scratch);

type Section = Map<string, ts.PropertySignature>;

function nameOf(member: ts.TypeElement): string | undefined {
  const name = member.name;
  return name && (ts.isIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined;
}

function isComponents(node: ts.Node): node is ts.InterfaceDeclaration {
  return ts.isInterfaceDeclaration(node) && node.name.text === "components";
}

/** The members of each section of a document's `components` (schemas, responses, parameters...). */
function sectionsOf(statements: readonly ts.Node[]): Map<string, Section> {
  const sections = new Map<string, Section>();
  const components = statements.find(isComponents);
  for (const section of components?.members ?? []) {
    const name = nameOf(section);
    if (!name || !ts.isPropertySignature(section) || !section.type || !ts.isTypeLiteralNode(section.type))
      continue;
    const members: Section = new Map();
    for (const member of section.type.members) {
      const memberName = nameOf(member);
      if (memberName && ts.isPropertySignature(member)) members.set(memberName, member);
    }
    sections.set(name, members);
  }
  return sections;
}

const key = (section: string, name: string) => `${section}/${name}`;

/** What a member refers to in its own document: `components["section"]["name"]`. */
function referencesOf(text: string): string[] {
  return [...text.matchAll(/components\["([^"]+)"\]\["([^"]+)"\]/g)].map(([, section = "", name = ""]) =>
    key(section, name),
  );
}

/** The members printed alike in every document whose references are all to members shared too. */
function sharedKeys(documents: readonly Map<string, Section>[]): Set<string> {
  const [first, ...others] = documents;
  const text = new Map<string, string>();
  for (const [section, members] of first ?? new Map<string, Section>())
    for (const [name, member] of members) {
      const printed = print(member);
      const alike = others.every((other) => {
        const candidate = other.get(section)?.get(name);
        return candidate !== undefined && print(candidate) === printed;
      });
      if (alike) text.set(key(section, name), printed);
    }
  // A member that refers to one that differs between the documents means something else in each.
  let changed = true;
  while (changed) {
    changed = false;
    for (const [member, printed] of text)
      if (referencesOf(printed).some((target) => !text.has(target))) {
        text.delete(member);
        changed = true;
      }
  }
  return new Set(text.keys());
}

function sectionLiteral(
  name: string,
  members: readonly ts.TypeElement[],
  type: ts.TypeNode = factory.createTypeLiteralNode(members),
): ts.PropertySignature {
  return factory.createPropertySignature(undefined, name, undefined, type);
}

/** `shared["section"] & { own members }`, or the one of them there is. */
function mergedSection(section: string, own: readonly ts.TypeElement[]): ts.TypeNode {
  const sharedPart = factory.createIndexedAccessTypeNode(
    factory.createTypeReferenceNode("shared"),
    factory.createLiteralTypeNode(factory.createStringLiteral(section)),
  );
  if (own.length === 0) return sharedPart;
  return factory.createIntersectionTypeNode([sharedPart, factory.createTypeLiteralNode(own)]);
}

/**
 * The shared module's statements, and each document's statements with the shared components taken out of
 * its `components` and referred to there.
 */
export function shareComponents(documents: readonly (readonly ts.Node[])[]): {
  shared: ts.Node[];
  documents: ts.Node[][];
} {
  const sections = documents.map(sectionsOf);
  const shared = sharedKeys(sections);
  const sharedSections = new Map<string, ts.PropertySignature[]>();
  for (const [section, members] of sections[0] ?? new Map<string, Section>())
    for (const [name, member] of members)
      if (shared.has(key(section, name)))
        sharedSections.set(section, [...(sharedSections.get(section) ?? []), member]);
  const sharedModule: ts.Node[] = [
    factory.createInterfaceDeclaration(
      [factory.createModifier(ts.SyntaxKind.ExportKeyword)],
      "components",
      undefined,
      undefined,
      [...sharedSections].map(([section, members]) => sectionLiteral(section, members)),
    ),
  ];
  const rewritten = documents.map((statements) => [
    factory.createImportDeclaration(
      undefined,
      factory.createImportClause(
        true,
        undefined,
        factory.createNamedImports([
          factory.createImportSpecifier(
            false,
            factory.createIdentifier("components"),
            factory.createIdentifier("shared"),
          ),
        ]),
      ),
      factory.createStringLiteral("./shared.ts"),
    ),
    ...statements.map((statement) => {
      if (!isComponents(statement)) return statement;
      const members = statement.members.map((section) => {
        const name = nameOf(section);
        if (!name || !sharedSections.has(name) || !ts.isPropertySignature(section) || !section.type)
          return section;
        if (!ts.isTypeLiteralNode(section.type)) return section;
        const own = section.type.members.filter((member) => {
          const memberName = nameOf(member);
          return !memberName || !shared.has(key(name, memberName));
        });
        return sectionLiteral(name, [], mergedSection(name, own));
      });
      return factory.updateInterfaceDeclaration(
        statement,
        statement.modifiers,
        statement.name,
        statement.typeParameters,
        statement.heritageClauses,
        members,
      );
    }),
  ]);
  return { shared: sharedModule, documents: rewritten };
}
