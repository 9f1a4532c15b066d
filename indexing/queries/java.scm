; Supplements tree-sitter-java's tags.scm (classes, interfaces and methods only).

(enum_declaration
  name: (identifier) @name) @definition.enum

(record_declaration
  name: (identifier) @name) @definition.class

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(constructor_declaration
  name: (identifier) @name) @definition.constructor

(field_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.field

(enum_constant
  name: (identifier) @name) @definition.enum_member
