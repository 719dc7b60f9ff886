; References in Zig. `const streaming = @import("clap/streaming.zig")` imports a file beside
; this one (`std` or a package's name: its root file) as `streaming`, and `@import("x.zig").f`
; one name of it; `streaming.f()` calls that file's `f`. A struct's methods are called on a
; value (`self.f()`, `names.f()`) or on the type (`Names.f(x)`).
(call_expression function: (identifier) @call.name)
(call_expression function: (field_expression object: (_) @call.receiver member: (identifier) @call.name))
(variable_declaration . (identifier) @import.alias
  (builtin_function (builtin_identifier) @_import (arguments . (string (string_content) @import.module)))
  (#eq? @_import "@import"))
(variable_declaration . (identifier) @import.alias
  (field_expression object: (builtin_function (builtin_identifier) @_import
                                              (arguments . (string (string_content) @import.module)))
                    member: (identifier) @import.name)
  (#eq? @_import "@import"))
; What a name holds: a parameter's or a variable's type (`T`, `*T`, `*const T`, `?T`, `pkg.T`),
; `T{ ... }`, `pkg.T{ ... }`.
(parameter name: (identifier) @type.var type: (identifier) @type.name)
(parameter name: (identifier) @type.var type: (pointer_type (identifier) @type.name))
(parameter name: (identifier) @type.var type: (nullable_type (identifier) @type.name))
(variable_declaration . (identifier) @type.var type: (identifier) @type.name)
(variable_declaration . (identifier) @type.var type: (field_expression member: (identifier) @type.name))
(variable_declaration . (identifier) @type.var (struct_initializer . (identifier) @type.class))
(variable_declaration . (identifier) @type.var (struct_initializer . (field_expression member: (identifier) @type.class)))
