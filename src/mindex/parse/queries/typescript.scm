; References in TypeScript: heritage clauses and interfaces.
; inherits: _js_calls
; a supertype as written: `Base`, `ns.Base`, `Base<T>` (refs.py keeps the last part)
(extends_clause value: [(identifier) (member_expression)] @extends.name)
(implements_clause [(type_identifier) (nested_type_identifier)] @implements.name)
(implements_clause (generic_type [(type_identifier) (nested_type_identifier)] @implements.name))
(extends_type_clause [(type_identifier) (nested_type_identifier)] @extends.name)
(extends_type_clause (generic_type [(type_identifier) (nested_type_identifier)] @extends.name))
; What a name holds, for calls on it: an annotated parameter or variable, and what a function
; says it returns.
(required_parameter pattern: (identifier) @type.var type: (type_annotation (_) @type.name))
(optional_parameter pattern: (identifier) @type.var type: (type_annotation (_) @type.name))
(variable_declarator name: (identifier) @type.var type: (type_annotation (_) @type.name))
(function_declaration return_type: (type_annotation (_) @returns.name))
(method_definition return_type: (type_annotation (_) @returns.name))
(method_signature return_type: (type_annotation (_) @returns.name))
; A class's field (@type.attr: `this.cache`) annotated or made, and a constructor's parameter
; property (`constructor(private http: HttpClient)`).
(public_field_definition name: [(property_identifier) (private_property_identifier)] @type.attr type: (type_annotation (_) @type.name))
(public_field_definition name: [(property_identifier) (private_property_identifier)] @type.attr
  value: (new_expression constructor: [(identifier) (member_expression)] @type.class))
(required_parameter (accessibility_modifier) pattern: (identifier) @type.attr type: (type_annotation (_) @type.name))
; A callback's parameters hold what the function it is passed to says they are (@param.fn in
; the call of @param.callee: `operate((source, subscriber) => ...)`, `operate`'s signature
; saying `init: (source: Observable<T>, subscriber: Subscriber<R>) => void`).
(call_expression function: [(identifier) (member_expression)] @param.callee
  arguments: (arguments [(arrow_function) (function_expression)] @param.fn))
