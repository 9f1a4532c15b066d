; Supplements tree-sitter-javascript's and tree-sitter-typescript's tags.scm (both are loaded
; for TypeScript and TSX). tags.scm misses type aliases, enums, constructors and plain classes.

(type_alias_declaration
  name: (type_identifier) @name) @definition.type_parameter

(enum_declaration
  name: (identifier) @name) @definition.enum

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(class_declaration
  name: (type_identifier) @name) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

(internal_module
  name: [(identifier) (nested_identifier)] @name) @definition.namespace

(method_definition
  name: (property_identifier) @name
  (#eq? @name "constructor")) @definition.constructor

; Functions bound to names: `const f = (x: T) => ...`, `let g = function () {}`.
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function

; Class fields bound to functions: `handle = () => {}`.
(public_field_definition
  name: (property_identifier) @name
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
