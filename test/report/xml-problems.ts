// XML well-formedness for the junit.xml tests (no XML parser among the dependencies).

/** A small XML 1.0 well-formedness check: balanced tags, one root, quoted attributes, known entities, and
 *  no character XML forbids. */
export function xmlProblems(xml: string): string[] {
  const problems: string[] = [];
  const forbidden = [...xml].some((ch) => {
    const c = ch.codePointAt(0) ?? 0;
    return (
      (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || (c >= 0xd800 && c <= 0xdfff) || c >= 0xfffe
    );
  });
  if (forbidden) problems.push("forbidden character");
  const entity = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
  const stack: string[] = [];
  let roots = 0;
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, "");
  const token = /<\/?([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>|<|[^<]+/g;
  for (const m of body.matchAll(token)) {
    const [all, name, attrs, selfClose] = m;
    if (all === "<") {
      problems.push(`stray < at ${m.index}`);
      continue;
    }
    if (name === undefined) {
      if (entity.test(all)) problems.push(`bad entity in text near ${all.slice(0, 40)}`);
      if (stack.length === 0 && all.trim() !== "") problems.push("text outside the root");
      continue;
    }
    if (attrs && entity.test(attrs)) problems.push(`bad entity in attributes of ${name}`);
    if (all.startsWith("</")) {
      if (stack.pop() !== name) problems.push(`unbalanced </${name}>`);
    } else {
      if (stack.length === 0) roots += 1;
      if (!selfClose) stack.push(name);
    }
  }
  if (stack.length > 0) problems.push(`unclosed ${stack.join(", ")}`);
  if (roots !== 1) problems.push(`${roots} root elements`);
  return problems;
}
