; References in Kotlin. A class's supertypes: one with a constructor call is its base
; (`extends`), the others interfaces (`implements`).
(call_expression . (identifier) @call.name)
(call_expression . (navigation_expression . (_) @call.receiver . (identifier) @call.name .))
(import (qualified_identifier) @import.module)
(delegation_specifier (constructor_invocation (user_type . (identifier) @extends.name)))
(delegation_specifier (user_type . (identifier) @implements.name))
; What a name holds: an annotated parameter or property, `val x = Foo()` is left to calls.
(parameter . (identifier) @type.var . (user_type) @type.name)
(class_parameter . (identifier) @type.var . (user_type) @type.name)
(property_declaration (variable_declaration . (identifier) @type.var . (user_type) @type.name))
; What a function says it returns (`c.root().run()` on it).
(function_declaration (function_value_parameters) . [(user_type) @returns.name (nullable_type (user_type) @returns.name)])
