// `...optional("key", value)`: the key only where the value is given. With exactOptionalPropertyTypes an
// absent field may not be written as `key: undefined`, and JSON output must not carry one either.
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
