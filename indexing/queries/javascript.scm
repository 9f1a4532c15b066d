; JavaScript beyond what it shares with TypeScript (ecmascript.scm, loaded first).

; Class fields bound to functions: `handle = () => {}`.
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method

; Class fields that hold values; a field bound to a function is a method (above).
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name) @definition.property
