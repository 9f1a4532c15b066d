; Nim definitions: procs, funcs, methods, iterators, converters, templates and macros; the
; types of `type` sections (an object, `ref object` or tuple is a struct with its fields, an
; enum has its members, a concept is an interface, anything else, `distinct int` or an
; alias, a type_parameter); and the constants, `let`s and `var`s of a module's top level. A
; name is written without its export marker (`add*` defines `add`), an operator without its
; backquotes (`` `$` `` defines `$`).

(proc_declaration
  name: [
    (identifier) @name
    (exported_symbol (identifier) @name)
    (accent_quoted (identifier) @name)
    (exported_symbol (accent_quoted (identifier) @name))
  ]) @definition.function

(func_declaration
  name: [
    (identifier) @name
    (exported_symbol (identifier) @name)
    (accent_quoted (identifier) @name)
    (exported_symbol (accent_quoted (identifier) @name))
  ]) @definition.function

(method_declaration
  name: [
    (identifier) @name
    (exported_symbol (identifier) @name)
    (accent_quoted (identifier) @name)
    (exported_symbol (accent_quoted (identifier) @name))
  ]) @definition.method

(iterator_declaration
  name: [
    (identifier) @name
    (exported_symbol (identifier) @name)
  ]) @definition.function

(converter_declaration
  name: [
    (identifier) @name
    (exported_symbol (identifier) @name)
  ]) @definition.function

(template_declaration
  name: [
    (identifier) @name
    (exported_symbol (identifier) @name)
    (accent_quoted (identifier) @name)
    (exported_symbol (accent_quoted (identifier) @name))
  ]) @definition.macro

(macro_declaration
  name: [
    (identifier) @name
    (exported_symbol (identifier) @name)
  ]) @definition.macro

; Types.
(type_declaration
  (type_symbol_declaration
    name: [(identifier) @name (exported_symbol (identifier) @name)])) @definition.type_parameter

(type_declaration
  (type_symbol_declaration
    name: [(identifier) @name (exported_symbol (identifier) @name)])
  [
    (object_declaration)
    (ref_type (object_declaration))
    (pointer_type (object_declaration))
    (tuple_type)
  ]) @definition.struct

(type_declaration
  (type_symbol_declaration
    name: [(identifier) @name (exported_symbol (identifier) @name)])
  (enum_declaration)) @definition.enum

(type_declaration
  (type_symbol_declaration
    name: [(identifier) @name (exported_symbol (identifier) @name)])
  (concept_declaration)) @definition.interface

(field_declaration
  (symbol_declaration_list
    (symbol_declaration
      name: [(identifier) @name (exported_symbol (identifier) @name)]))) @definition.field

(enum_field_declaration
  (symbol_declaration
    name: [(identifier) @name (exported_symbol (identifier) @name)])) @definition.enum_member

; Module-level constants and variables.
(source_file
  (const_section
    (variable_declaration
      (symbol_declaration_list
        (symbol_declaration
          name: [(identifier) @name (exported_symbol (identifier) @name)]))) @definition.constant))

(source_file
  (let_section
    (variable_declaration
      (symbol_declaration_list
        (symbol_declaration
          name: [(identifier) @name (exported_symbol (identifier) @name)]))) @definition.variable))

(source_file
  (var_section
    (variable_declaration
      (symbol_declaration_list
        (symbol_declaration
          name: [(identifier) @name (exported_symbol (identifier) @name)]))) @definition.variable))
