// What javac's own attribution says each call on a plain name reaches: the reference of
// bench_graph.py for Java. Every .java file under ROOT is one compilation (missing libraries
// are errors javac reports and goes on past: a call whose receiver's type is unknown gets no
// answer); each call `x.f(...)` whose `x` is a plain name (a variable, a field, a class) prints
// one JSON line: the file and line of the call's name, the call as written, and the file and
// line of the method it reaches ("out" outside ROOT, "" when javac resolves none). Of an
// overloaded method, the one javac picks. With -results, the calls `g().f()` and `new C().f()`
// on what a call returns or a `new` makes instead, written `().f`; with -bare, the calls `f(...)`
// of a name alone (a method of the class or its bases, a static import), written `f`; with
// -self, the calls `this.f(...)`.
//
//	java benchmarks/JavaCalls.java [-results|-bare|-self] ROOT
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public class JavaCalls {
  public static void main(String[] args) throws IOException {
    boolean results = args[0].equals("-results");
    boolean bare = args[0].equals("-bare");
    boolean self = args[0].equals("-self");
    Path root = Paths.get(args[args.length - 1]).toRealPath();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(root)) {
      files = walk.filter(p -> p.toString().endsWith(".java")).sorted().collect(Collectors.toList());
    }
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    StandardJavaFileManager manager = compiler.getStandardFileManager(null, null, null);
    Iterable<? extends JavaFileObject> units = manager.getJavaFileObjectsFromPaths(files);
    JavacTask task = (JavacTask) compiler.getTask(null, manager, diagnostic -> {},
        List.of("-proc:none", "-implicit:none", "-Xmaxerrs", "0"), null, units);
    Iterable<? extends CompilationUnitTree> parsed = task.parse();
    task.analyze();
    Trees trees = Trees.instance(task);
    SourcePositions positions = trees.getSourcePositions();
    StringBuilder out = new StringBuilder();
    for (CompilationUnitTree unit : parsed) {
      Path file = Paths.get(unit.getSourceFile().toUri()).toRealPath();
      String rel = root.relativize(file).toString().replace('\\', '/');
      new TreePathScanner<Void, Void>() {
        @Override
        public Void visitMethodInvocation(MethodInvocationTree call, Void unused) {
          Tree selected = call.getMethodSelect();
          String written = null;
          if (bare && selected instanceof IdentifierTree) {  // `f(x)`, not `this(x)` or `super(x)`
            String name = ((IdentifierTree) selected).getName().toString();
            written = name.equals("this") || name.equals("super") ? null : name;
          } else if (!bare && selected instanceof MemberSelectTree) {
            MemberSelectTree select = (MemberSelectTree) selected;
            Tree on = select.getExpression();
            boolean onThis = on instanceof IdentifierTree && ((IdentifierTree) on).getName().contentEquals("this");
            if (results ? on instanceof MethodInvocationTree || on instanceof NewClassTree
                : self ? onThis : on instanceof IdentifierTree) {
              written = (results ? "()" : ((IdentifierTree) on).getName().toString()) + "." + select.getIdentifier();
            }
          }
          if (written != null) {
            // the line of the name: the call's name ends where the select does
            String name = written.substring(written.lastIndexOf('.') + 1);
            long at = positions.getEndPosition(unit, selected) - name.length();
            long line = unit.getLineMap().getLineNumber(at);
            String defFile = "";
            long defLine = 0;
            Element element = trees.getElement(new TreePath(getCurrentPath(), selected));
            if (element != null && element.getKind() == ElementKind.METHOD) {
              TreePath declared = trees.getPath(element);
              if (declared == null) {
                defFile = "out";
              } else {
                Path where = Paths.get(declared.getCompilationUnit().getSourceFile().toUri()).normalize();
                if (!where.startsWith(root)) {
                  defFile = "out";
                } else {
                  defFile = root.relativize(where).toString().replace('\\', '/');
                  // the line of its return type (its body's for a constructor), past its annotations
                  MethodTree method = (MethodTree) declared.getLeaf();
                  Tree anchor = method.getReturnType() != null ? method.getReturnType()
                      : method.getBody() != null ? method.getBody() : method;
                  defLine = declared.getCompilationUnit().getLineMap().getLineNumber(
                      positions.getStartPosition(declared.getCompilationUnit(), anchor));
                }
              }
            }
            out.append(String.format("{\"file\": \"%s\", \"line\": %d, \"call\": \"%s\", \"def_file\": \"%s\", \"def_line\": %d}%n",
                rel, line, written, defFile, defLine));
          }
          return super.visitMethodInvocation(call, unused);
        }
      }.scan(unit, null);
    }
    System.out.print(out);
  }
}
