; Supplements tree-sitter-cpp's tags.scm (which already carries C's patterns): whole function
; definitions rather than declarators, out-of-line methods with any scope, destructors and
; operators, namespaces, and struct/enum kinds.

(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function

(function_definition
  declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method

(function_definition
  declarator: (_ declarator: (function_declarator declarator: (identifier) @name)))
  @definition.function

(function_declarator
  declarator: (qualified_identifier name: (_) @name)) @definition.method

(function_declarator
  declarator: [(destructor_name) (operator_name)] @name) @definition.method

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.namespace

(struct_specifier
  name: (type_identifier) @name
  body: (_)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (_)) @definition.struct

(class_specifier
  name: (type_identifier) @name
  body: (_)) @definition.class

(enum_specifier
  name: (type_identifier) @name
  body: (_)) @definition.enum

(alias_declaration
  name: (type_identifier) @name) @definition.type_parameter

(type_definition
  type: (struct_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.struct

; Any other typedef is a type alias.
(type_definition
  declarator: (type_identifier) @name) @definition.type_parameter

(preproc_def
  name: (identifier) @name) @definition.constant

(preproc_function_def
  name: (identifier) @name) @definition.function
