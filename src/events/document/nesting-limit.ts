// The deepest nesting of objects and arrays the checker inspects by default: the reader stops there (no
// input exhausts the stack) and the generator's too-deep mutation goes just past it.
export const defaultMaxDepth = 512;
