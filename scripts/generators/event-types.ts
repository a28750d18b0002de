// Placeholder: its owner replaces this with the real generator.
import type { GeneratedFile } from "../generate.ts";

export async function generate(_root: string): Promise<GeneratedFile[]> {
  return [];
}
