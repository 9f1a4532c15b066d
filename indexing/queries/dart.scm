; Dart definitions: classes, mixins, extensions, enums and their values, functions, methods,
; getters and setters, constructors (named ones by their second name), fields and top-level
; variables, type aliases. The grammar puts a function's body beside its signature
; (dart.toml joins them).

(class_definition
  name: (identifier) @name) @definition.class

(mixin_declaration
  (identifier) @name) @definition.class

(extension_declaration
  name: (identifier) @name) @definition.class

(enum_declaration
  name: (identifier) @name) @definition.enum

(enum_constant
  name: (identifier) @name) @definition.enum_member

(type_alias
  (type_identifier) @name) @definition.type_parameter

(method_signature
  [
    (function_signature name: (identifier) @name)
    (getter_signature name: (identifier) @name)
    (setter_signature name: (identifier) @name)
  ]) @definition.method

(method_signature
  (constructor_signature name: (identifier) @name . (formal_parameter_list))) @definition.constructor

(method_signature
  (factory_constructor_signature (identifier) @name . (formal_parameter_list))) @definition.constructor

(declaration
  (constructor_signature name: (identifier) @name . (formal_parameter_list))) @definition.constructor

(declaration
  (factory_constructor_signature (identifier) @name . (formal_parameter_list))) @definition.constructor

(program
  (function_signature name: (identifier) @name) @definition.function)

(program
  (getter_signature name: (identifier) @name) @definition.function)

(declaration
  (initialized_identifier_list (initialized_identifier (identifier) @name))) @definition.field

(declaration
  (static_final_declaration_list (static_final_declaration . (identifier) @name))) @definition.field

; Top-level `var x` is a variable; `final` and `const` ones are bound once.
(program
  (initialized_identifier_list
    (initialized_identifier (identifier) @name) @definition.variable))

(program
  (static_final_declaration_list
    (static_final_declaration . (identifier) @name) @definition.constant))

; Abstract members (`Future<Item> find(int id);`, `int get count;`): a declaration with no
; body, in a class, mixin, extension or enum body.
(class_body
  (declaration
    [
      (function_signature name: (identifier) @name)
      (getter_signature name: (identifier) @name)
      (setter_signature name: (identifier) @name)
    ] @definition.method))

(extension_body
  (declaration
    [
      (function_signature name: (identifier) @name)
      (getter_signature name: (identifier) @name)
      (setter_signature name: (identifier) @name)
    ] @definition.method))

(enum_body
  (declaration
    [
      (function_signature name: (identifier) @name)
      (getter_signature name: (identifier) @name)
      (setter_signature name: (identifier) @name)
    ] @definition.method))
