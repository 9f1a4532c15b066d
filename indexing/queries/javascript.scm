; JavaScript beyond what it shares with TypeScript (ecmascript.scm, loaded first).

; Class fields bound to functions: `handle = () => {}`.
(field_definition
  property: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.method
