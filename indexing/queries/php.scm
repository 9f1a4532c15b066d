; PHP definitions: classes, interfaces, traits and enums, their methods (`__construct` is the
; constructor), properties, constants and cases, and functions. Namespaces qualify what
; follows them (php.toml).

(class_declaration
  name: (name) @name) @definition.class

(interface_declaration
  name: (name) @name) @definition.interface

; A trait is a bundle of methods classes `use`: it has no instances, like an interface.
(trait_declaration
  name: (name) @name) @definition.interface

(enum_declaration
  name: (name) @name) @definition.enum

(enum_case
  name: (name) @name) @definition.enum_member

(function_definition
  name: (name) @name) @definition.function

(method_declaration
  name: (name) @name) @definition.method

(method_declaration
  name: (name) @name
  (#eq? @name "__construct")) @definition.constructor

(property_declaration
  (property_element
    name: (variable_name (name) @name))) @definition.property

; PHP 8 promoted constructor parameters (`private readonly string $field`) are properties of
; the class (php.toml's `member_parameters`), named without `$` like the declared ones.
(property_promotion_parameter
  name: (variable_name (name) @name)) @definition.property

(const_declaration
  (const_element (name) @name)) @definition.constant

; `define('LIMIT', 5);` at the top level.
(expression_statement
  (function_call_expression
    function: (name) @_define
    arguments: (arguments . (argument (string (string_content) @name))))
  (#eq? @_define "define")) @definition.constant

; `namespace App\Models;` (it also qualifies what follows it, see php.toml).
(namespace_definition
  name: (namespace_name) @name) @definition.namespace
