; Scala definitions: classes, objects, traits and enums, functions and abstract declarations,
; vals and vars of templates and packages, type definitions, enum cases. A Scala 3
; `extension (s: T) def f` belongs to T, captured as its scope.

(class_definition
  name: (identifier) @name) @definition.class

(object_definition
  name: (identifier) @name) @definition.object

(trait_definition
  name: (identifier) @name) @definition.interface

(enum_definition
  name: (identifier) @name) @definition.enum

(simple_enum_case
  name: (identifier) @name) @definition.enum_member

(full_enum_case
  name: (identifier) @name) @definition.enum_member

(extension_definition
  parameters: (parameters (parameter type: (_) @scope))
  body: (function_definition name: (identifier) @name) @definition.method)

(function_definition
  name: (identifier) @name) @definition.function

(function_declaration
  name: (identifier) @name) @definition.method

(type_definition
  name: (type_identifier) @name) @definition.type_parameter

(template_body
  (val_definition pattern: (identifier) @name) @definition.constant)

(template_body
  (var_definition pattern: (identifier) @name) @definition.variable)

(compilation_unit
  (val_definition pattern: (identifier) @name) @definition.constant)
