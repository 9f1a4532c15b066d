; C definitions: functions (defined or declared), structs, unions, enums, typedefs and
; macros. A specifier without a body is a use, not a definition, so those patterns ask for one.

(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function

(struct_specifier
  name: (type_identifier) @name
  body: (_)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (_)) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (_)) @definition.enum

; `typedef struct { ... } Name;` is how C names most structs.
(type_definition
  type: (struct_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (enum_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.enum

; Any other typedef is a type alias: of a type, a pointer or an array.
(type_definition
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (type_identifier) @name))
    (array_declarator declarator: (type_identifier) @name)
  ]) @definition.type_parameter

; Typedefs of functions and function pointers: `typedef int (*handler)(void*);`, also under
; further pointers (`typedef char* (*reader)(...)`); the extractor widens the declarator to
; its typedef. Only a typedef declares a `type_identifier`, so these are never prototypes.
(function_declarator
  declarator: (type_identifier) @name) @definition.type_parameter

(function_declarator
  declarator: (parenthesized_declarator
    (pointer_declarator
      declarator: [
        (type_identifier) @name
        (pointer_declarator declarator: (type_identifier) @name)
        (array_declarator declarator: (type_identifier) @name)
      ]))) @definition.type_parameter

(preproc_def
  name: (identifier) @name) @definition.constant

(preproc_function_def
  name: (identifier) @name) @definition.function

; Prototypes, and any function declarator the patterns above did not cover (they come first:
; when two patterns give a name the same kind, the earlier one wins). The extractor widens the
; declarator to its declaration and drops parameters and locals.
(function_declarator
  declarator: (identifier) @name) @definition.function
