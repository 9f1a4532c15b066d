; Perl definitions: subroutines (in the package a `package` statement opened, perl.toml),
; packages themselves, and `our`/`use constant` values at the top level.

(package_statement
  name: (package) @name) @definition.module

(subroutine_declaration_statement
  name: (bareword) @name) @definition.function

(source_file
  (expression_statement
    (assignment_expression
      left: (variable_declaration
        variable: [(scalar) (array) (hash)] @name))) @definition.variable)

(use_statement
  module: (package) @_constant
  (list_expression . (autoquoted_bareword) @name)
  (#eq? @_constant "constant")) @definition.constant

(use_statement
  module: (package) @_constant
  (autoquoted_bareword) @name
  (#eq? @_constant "constant")) @definition.constant

; `use constant { WS_TEXT => 0x1, WS_BINARY => 0x2 };`: every key is a constant.
(use_statement
  module: (package) @_constant
  (anonymous_hash_expression
    (list_expression (autoquoted_bareword) @name))
  (#eq? @_constant "constant")) @definition.constant
