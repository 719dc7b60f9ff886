; References in Swift. A type's inheritance clause names its superclass and protocols alike
; (read as `extends`); `Widget(a: 1)` calls a class as a function call does.
(call_expression . (simple_identifier) @call.name)
(call_expression . (navigation_expression target: (_) @call.receiver
                                          suffix: (navigation_suffix suffix: (simple_identifier) @call.name)))
(import_declaration (identifier) @import.module)
(inheritance_specifier inherits_from: (user_type (type_identifier) @extends.name))
; What a name holds: an annotated property or parameter, `let w = Widget()`.
(property_declaration (pattern (simple_identifier) @type.var) (type_annotation (user_type) @type.name))
(property_declaration (pattern (simple_identifier) @type.var) (call_expression . (simple_identifier) @type.class))
(parameter name: (simple_identifier) @type.var (user_type) @type.name)
; What a function says it returns (its grammar names the type `name` too).
(function_declaration name: [(user_type) @returns.name (optional_type wrapped: (user_type) @returns.name)])
