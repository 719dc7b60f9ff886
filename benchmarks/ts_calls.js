// What TypeScript's own checker says each call on a plain name reaches: the reference of
// bench_graph.py for TypeScript (and JavaScript, CALLS_IN=.js). Every .ts file under ROOT (not .d.ts, not tests) makes one
// program; each call `x.f(...)` whose `x` is a name or `this.y` prints one JSON line: the file and line of
// the call, the call as written, and the file and line of the declaration it reaches ("out"
// outside ROOT, "" when the checker finds none). CALLS_ON=results: the calls `g().f()` and
// `new C().f()` on what a call returns or a `new` makes instead, written `().f`; CALLS_ON=bare:
// the calls `f()` of a name alone, written `f`.
//
//	NODE_PATH=<a folder holding typescript> node benchmarks/ts_calls.js ROOT
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require("typescript");

const root = fs.realpathSync(process.argv[2]);
const suffix = process.env.CALLS_IN || ".ts";
const results = process.env.CALLS_ON === "results"; // calls `g().f()`, `new C().f()` on what a call returns, written `().f`
const bare = process.env.CALLS_ON === "bare"; // calls `f()` of a name alone, written `f`
const self = process.env.CALLS_ON === "self"; // calls `this.f()` // ".js": a JavaScript package, read as TypeScript reads JavaScript
const files = [];
(function walk(folder) {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) walk(full);
    else if (entry.name.endsWith(suffix) && !entry.name.endsWith(".d.ts") && !/\.(spec|test)\.[jt]s$/.test(entry.name)) files.push(full);
  }
})(root);
const program = ts.createProgram(files, { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS, noEmit: true,
  lib: ["lib.es2020.d.ts", "lib.dom.d.ts"], skipLibCheck: true, allowJs: suffix === ".js", checkJs: suffix === ".js" });
const checker = program.getTypeChecker();
for (const source of program.getSourceFiles()) {
  if (!files.includes(source.fileName) && !files.includes(path.resolve(source.fileName))) continue;
  const rel = path.relative(root, source.fileName).split(path.sep).join("/");
  (function visit(node) {
    const access = ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) ? node.expression : null;
    const on = access && access.expression;
    // a call on a name (`x.f()`) or on an attribute of `this` (`this.x.f()`)
    const alone = bare && ts.isCallExpression(node) && ts.isIdentifier(node.expression) ? node.expression : null;
    const receiver = bare ? null : !on ? null : self ? (on.kind === ts.SyntaxKind.ThisKeyword ? "this" : null) : results ? (ts.isCallExpression(on) || ts.isNewExpression(on) ? "()" : null)
      : ts.isIdentifier(on) ? on.text
      : ts.isPropertyAccessExpression(on) && on.expression.kind === ts.SyntaxKind.ThisKeyword ? `this.${on.name.text}` : null;
    const named = alone || (receiver ? access.name : null);
    if (named) {
      const line = source.getLineAndCharacterOfPosition(named.getStart(source)).line + 1;
      const row = { file: rel, line, call: alone ? alone.text : `${receiver}.${access.name.text}`, def_file: "", def_line: 0 };
      let symbol = checker.getSymbolAtLocation(named);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      // of an overloaded method, its implementation (the one with a body), else the first
      const declarations = (symbol && symbol.declarations) || [];
      const declaration = declarations.find((d) => d.body) || declarations[0];
      // with CALLS_ON=bare, a parameter or a variable that holds no function literal is no definition to judge
      // (and with CALLS_ON=self, a field or a property holding no function literal)
      const literal = (d) => d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer));
      const held = (alone || self) && declaration && (ts.isParameter(declaration) || ts.isBindingElement(declaration)
        || ts.isPropertySignature(declaration)
        || ((ts.isVariableDeclaration(declaration) || ts.isPropertyDeclaration(declaration)) && !literal(declaration)));
      if (held) {
        ts.forEachChild(node, visit);
        return;
      }
      if (declaration) {
        const where = declaration.getSourceFile();
        const inside = path.relative(root, fs.realpathSync(where.fileName));
        if (inside.startsWith("..") || path.isAbsolute(inside)) row.def_file = "out";
        else {
          row.def_file = inside.split(path.sep).join("/");
          row.def_line = where.getLineAndCharacterOfPosition(declaration.getStart(where)).line + 1;
        }
      }
      process.stdout.write(JSON.stringify(row) + "\n");
    }
    ts.forEachChild(node, visit);
  })(source);
}
