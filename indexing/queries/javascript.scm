; Supplements tree-sitter-javascript's tags.scm.

; Constructors (tags.scm excludes them from methods).
(method_definition
  name: (property_identifier) @name
  (#eq? @name "constructor")) @definition.constructor

; Functions bound to names: `const f = () => ...`, `let g = function () {}` (restated from
; tags.scm so that, being ours, it is ranked against the value patterns below by kind).
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function

; Class fields bound to functions: `handle = () => {}`.
(field_definition
  property: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.method

; Top-level values: `export const registry = {...}`, `let cache = new Map()`, `var x = 1`.
; A name bound to a function is still a function: the function pattern outranks these.
(program
  (lexical_declaration
    kind: "const"
    (variable_declarator name: (identifier) @name) @definition.constant))
(program
  (export_statement
    (lexical_declaration
      kind: "const"
      (variable_declarator name: (identifier) @name) @definition.constant)))
(program
  (lexical_declaration
    kind: "let"
    (variable_declarator name: (identifier) @name) @definition.variable))
(program
  (export_statement
    (lexical_declaration
      kind: "let"
      (variable_declarator name: (identifier) @name) @definition.variable)))
(program
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.variable))
(program
  (export_statement
    (variable_declaration
      (variable_declarator name: (identifier) @name) @definition.variable)))
