; Zig definitions: functions, and constants and variables, which are also how Zig names its
; types (`const Point = struct {...}`: a struct, with fields and methods inside), and tests.

(Decl
  (FnProto function: (IDENTIFIER) @name)) @definition.function

(Decl
  (VarDecl
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "struct")))))) @definition.struct

(Decl
  (VarDecl
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "enum")))))) @definition.enum

(Decl
  (VarDecl
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "union")))))) @definition.struct

(Decl
  (VarDecl
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ErrorSetDecl))))) @definition.enum

(Decl
  (VarDecl
    "const"
    variable_type_function: (IDENTIFIER) @name)) @definition.constant

(Decl
  (VarDecl
    "var"
    variable_type_function: (IDENTIFIER) @name)) @definition.variable

(ContainerField
  field_member: (IDENTIFIER) @name) @definition.field

(TestDecl
  (STRINGLITERALSINGLE) @name) @definition.function
