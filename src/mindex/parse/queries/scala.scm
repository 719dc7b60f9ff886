; References in Scala. A call: `f(x)`, `f[T](x)`, `obj.f(x)`, `new C(x)` and an infix call
; by a word (`xs foreach println`); a method called without parentheses (`xs.head`) reads as
; a field and is not one. An import is the whole statement (`import a.b.{C, D => E}`, `a.b._`,
; refs.py splits it). A class's `extends A with B, C`: every supertype is `extends` (a class
; and a trait are written alike).
(call_expression function: (identifier) @call.name)
(call_expression function: (field_expression value: (_) @call.receiver field: (identifier) @call.name))
(call_expression function: (generic_function function: (identifier) @call.name))
(call_expression function: (generic_function function: (field_expression value: (_) @call.receiver
                                                                         field: (identifier) @call.name)))
(instance_expression . (type_identifier) @call.name)
(instance_expression . (generic_type . (type_identifier) @call.name))
(infix_expression left: (_) @call.receiver operator: (identifier) @call.name)
(import_declaration) @import.tree
(extends_clause type: [(type_identifier) (stable_type_identifier)] @extends.name)
(extends_clause type: (generic_type . [(type_identifier) (stable_type_identifier)] @extends.name))
; What a name holds: an annotated parameter, class parameter, `val` or `var`; `val c = new C()`.
(parameter name: (identifier) @type.var type: (_) @type.name)
(class_parameter name: (identifier) @type.var type: (_) @type.name)
(val_definition pattern: (identifier) @type.var type: (_) @type.name)
(var_definition pattern: (identifier) @type.var type: (_) @type.name)
(val_definition pattern: (identifier) @type.var value: (instance_expression . (type_identifier) @type.class))
(var_definition pattern: (identifier) @type.var value: (instance_expression . (type_identifier) @type.class))
(function_definition return_type: (_) @returns.name)
