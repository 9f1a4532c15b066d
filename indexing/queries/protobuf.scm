; Protocol Buffers definitions: messages (nested ones inside theirs), their fields and
; oneofs, enums and their values, services and their rpcs. The package qualifies them all.

(message
  (message_name (identifier) @name)) @definition.struct

(field
  (identifier) @name) @definition.field

(map_field
  (identifier) @name) @definition.field

(oneof
  (identifier) @name) @definition.field

(oneof_field
  (identifier) @name) @definition.field

(enum
  (enum_name (identifier) @name)) @definition.enum

(enum_field
  (identifier) @name) @definition.enum_member

(service
  (service_name (identifier) @name)) @definition.interface

(rpc
  (rpc_name (identifier) @name)) @definition.method
