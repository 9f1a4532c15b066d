; OCaml definitions: let-bound values and functions (a binding with parameters, or bound to
; `fun`/`function`, is a function), types and their constructors and fields, modules, module
; types, exceptions, classes and methods.

(let_binding
  pattern: (value_name) @name
  (parameter)) @definition.function

(let_binding
  pattern: (value_name) @name
  body: [(fun_expression) (function_expression)]) @definition.function

(let_binding
  pattern: (value_name) @name) @definition.variable

(type_binding
  name: (type_constructor) @name
  body: (record_declaration)) @definition.struct

(type_binding
  name: (type_constructor) @name
  body: (variant_declaration)) @definition.enum

(type_binding
  name: (type_constructor) @name) @definition.type_parameter

; Before constructors: an exception is declared by one.
(exception_definition
  (constructor_declaration (constructor_name) @name)) @definition.class

(constructor_declaration
  (constructor_name) @name) @definition.enum_member

(field_declaration
  (field_name) @name) @definition.field

(module_binding
  (module_name) @name) @definition.module

(module_type_definition
  (module_type_name) @name) @definition.interface

(class_binding
  (class_name) @name) @definition.class

(method_definition
  (method_name) @name) @definition.method

; ppx_inline_test's and ppx_expect's tests, kept beside the code they test and named by their
; string: `let%test "name" = ...`, `let%test_unit`, `let%expect_test`, and `let%test_module`
; that groups them (`indexing.classify.in_test_module` reads them as tests). One bound to `_`
; (`let%expect_test _ = ...`, `module%test _ = struct ... end`) is named by its extension, as
; D's `unittest` is by its keyword: `_` binds nothing (ocaml.toml).

(value_definition
  (attribute_id) @name
  (let_binding
    pattern: (value_name) @_blank)
  (#eq? @_blank "_")
  (#any-of? @name "test" "test_unit" "expect_test")) @definition.function

(module_definition
  (attribute_id) @name
  (module_binding
    (module_name) @_blank)
  (#eq? @_blank "_")
  (#eq? @name "test")) @definition.module

(value_definition
  (attribute_id) @_ppx
  (let_binding
    pattern: (string (string_content) @name)) @definition.function
  (#any-of? @_ppx "test" "test_unit" "expect_test"))

(value_definition
  (attribute_id) @_ppx
  (let_binding
    pattern: (string (string_content) @name)) @definition.module
  (#eq? @_ppx "test_module"))
