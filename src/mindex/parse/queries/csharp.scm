; References in C#. A base list names a base class and interfaces alike: a name spelled as .NET
; spells interfaces (`IDisposable`, `IRequestHandler<T>`) is `implements`, another `extends`.
(invocation_expression function: (identifier) @call.name)
(invocation_expression function: (member_access_expression expression: (_) @call.receiver name: (identifier) @call.name))
(invocation_expression function: (generic_name (identifier) @call.name))
(invocation_expression function: (member_access_expression expression: (_) @call.receiver name: (generic_name (identifier) @call.name)))
(object_creation_expression type: (identifier) @call.name)
(object_creation_expression type: (qualified_name name: (identifier) @call.name))
(object_creation_expression type: (generic_name (identifier) @call.name))
(using_directive [(identifier) (qualified_name)] @import.module)
((base_list [(identifier) (qualified_name)] @implements.name) (#match? @implements.name "(^|[.])I[A-Z][^.]*$"))
((base_list [(identifier) (qualified_name)] @extends.name) (#not-match? @extends.name "(^|[.])I[A-Z][^.]*$"))
((base_list (generic_name (identifier) @implements.name)) (#match? @implements.name "^I[A-Z]"))
((base_list (generic_name (identifier) @extends.name)) (#not-match? @extends.name "^I[A-Z]"))
; What a name holds: a parameter, a declared variable or field, `var x = new Foo()`.
(parameter type: (_) @type.name name: (identifier) @type.var)
(variable_declaration type: (_) @type.name (variable_declarator name: (identifier) @type.var))
(variable_declaration type: (implicit_type) (variable_declarator name: (identifier) @type.var
  (object_creation_expression type: (_) @type.class)))
; `this.F()` and `base.F()`: the keyword is no named node.
(invocation_expression function: (member_access_expression expression: "this" name: (identifier) @call.name))
; What a method says it returns (`c.Root().Run()` on it).
(method_declaration returns: (_) @returns.name)
