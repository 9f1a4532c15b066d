; Supplements tree-sitter-javascript's tags.scm.

; Constructors (tags.scm excludes them from methods).
(method_definition
  name: (property_identifier) @name
  (#eq? @name "constructor")) @definition.constructor

; Class fields bound to functions: `handle = () => {}`.
(field_definition
  property: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.method
