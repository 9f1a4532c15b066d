; Pascal and Delphi definitions: the unit, program or library (which qualifies what it
; holds, as `Cart.TLine` does in Pascal); types (a class or object, a record as a struct, an
; interface, an enum with its values, anything else a type_parameter); fields, methods,
; constructors and properties; routines, both where they are declared (a unit's `interface`
; section, a class body) and where they are implemented (`procedure TCart.Add` is `Add` of
; `TCart`); and the constants and variables of a unit's or program's top level.

[(unit (moduleName) @name) (program (moduleName) @name) (library (moduleName) @name)] @definition.module

; Implementations first: they and the header inside them name the routine at one place,
; and of two patterns of one kind the earlier wins.
(defProc
  header: (declProc name: (identifier) @name)) @definition.function

(defProc
  header: (declProc
    name: (genericDot lhs: (_) @scope rhs: (identifier) @name))) @definition.method

(defProc
  header: (declProc
    (kConstructor)
    name: (genericDot lhs: (_) @scope rhs: (identifier) @name))) @definition.constructor

(declProc
  name: (identifier) @name) @definition.function

(declProc
  (kConstructor)
  name: (identifier) @name) @definition.constructor

(declType
  name: (identifier) @name) @definition.type_parameter

(declType
  name: (identifier) @name
  type: (declClass [(kClass) (kObject)])) @definition.class

(declType
  name: (identifier) @name
  type: (declClass (kRecord))) @definition.struct

(declType
  name: (identifier) @name
  type: (declIntf)) @definition.interface

(declType
  name: (identifier) @name
  type: (type (declEnum))) @definition.enum

(declEnumValue
  name: (identifier) @name) @definition.enum_member

(declField
  name: (identifier) @name) @definition.field

(declProp
  name: (identifier) @name) @definition.property

; The constants and variables of a unit's sections or a program, not a routine's locals.

(interface
  (declConsts (declConst name: (identifier) @name) @definition.constant))

(interface
  (declVars (declVar name: (identifier) @name) @definition.variable))

(implementation
  (declConsts (declConst name: (identifier) @name) @definition.constant))

(implementation
  (declVars (declVar name: (identifier) @name) @definition.variable))

(program
  (declConsts (declConst name: (identifier) @name) @definition.constant))

(program
  (declVars (declVar name: (identifier) @name) @definition.variable))

(library
  (declConsts (declConst name: (identifier) @name) @definition.constant))

(library
  (declVars (declVar name: (identifier) @name) @definition.variable))
