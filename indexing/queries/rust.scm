; Rust definitions: items of every sort. A `fn` is a function here; the extractor makes it a
; method when it sits in an `impl` or a trait.

(function_item
  name: (identifier) @name) @definition.function

(mod_item
  name: (identifier) @name) @definition.module

(struct_item
  name: (type_identifier) @name) @definition.struct

(union_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(type_item
  name: (type_identifier) @name) @definition.type_parameter

(trait_item
  name: (type_identifier) @name) @definition.interface

; Impl blocks are containers; the extractor names them `impl Trait for X` / `impl X`.
(impl_item
  type: (_) @name) @definition.object

; A function with no body: a trait's required method (its trait makes it a method) or a
; function of an `extern` block (a free function).
(function_signature_item
  name: (identifier) @name) @definition.function

(macro_definition
  name: (identifier) @name) @definition.function

(const_item
  name: (identifier) @name) @definition.constant

(static_item
  name: (identifier) @name) @definition.variable
