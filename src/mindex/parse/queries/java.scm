; References in Java.
(method_invocation !object name: (identifier) @call.name)
(method_invocation object: (_) @call.receiver name: (identifier) @call.name)
(object_creation_expression type: (type_identifier) @call.name)
(import_declaration (scoped_identifier) @import.module)
; a supertype as written: `Base`, `pkg.Base`, `Base<T>` (refs.py keeps the last part)
(superclass [(type_identifier) (scoped_type_identifier)] @extends.name)
(superclass (generic_type [(type_identifier) (scoped_type_identifier)] @extends.name))
(super_interfaces (type_list [(type_identifier) (scoped_type_identifier)] @implements.name))
(super_interfaces (type_list (generic_type [(type_identifier) (scoped_type_identifier)] @implements.name)))
(extends_interfaces (type_list [(type_identifier) (scoped_type_identifier)] @extends.name))
(extends_interfaces (type_list (generic_type [(type_identifier) (scoped_type_identifier)] @extends.name)))
; What a name holds, for calls on it: a declared variable, parameter, field or loop variable
; (`Gson gson = ...`: fields are seen from the class's methods), `var x = new Foo()` or a call's
; result, and what a method says it returns.
(local_variable_declaration type: (_) @type.name declarator: (variable_declarator name: (identifier) @type.var))
(local_variable_declaration type: (type_identifier) @_var
  declarator: (variable_declarator name: (identifier) @type.var value: (object_creation_expression type: (_) @type.class)))
(local_variable_declaration type: (type_identifier) @_var
  declarator: (variable_declarator name: (identifier) @type.var value: (method_invocation) @type.new))
(formal_parameter type: (_) @type.name name: (identifier) @type.var)
(field_declaration type: (_) @type.name declarator: (variable_declarator name: (identifier) @type.var))
(enhanced_for_statement type: (_) @type.name name: (identifier) @type.var)
(catch_formal_parameter (catch_type . (_) @type.name .) name: (identifier) @type.var)
(method_declaration type: (_) @returns.name)
