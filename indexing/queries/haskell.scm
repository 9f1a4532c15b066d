; Haskell definitions: the module, data types, newtypes, synonyms, classes and their method
; signatures, and top-level functions: a signature and the equations after it are one
; definition (haskell.toml), named where the signature is.

(header
  module: (module) @name) @definition.module

(data_type
  name: (name) @name) @definition.struct

(newtype
  name: (name) @name) @definition.struct

(type_synomym
  name: (name) @name) @definition.type_parameter

(class
  name: (name) @name) @definition.interface

(class_declarations
  (signature name: (variable) @name) @definition.method)

(data_constructor
  constructor: [
    (record name: (constructor) @name)
    (prefix name: (constructor) @name)
  ]) @definition.enum_member

(declarations
  (signature name: (variable) @name) @definition.function)

(declarations
  (function name: (variable) @name) @definition.function)

(declarations
  (bind name: (variable) @name) @definition.function)
