// Fails on exports of src/ that no module imports (tests, benchmarks and scripts count as importers):
// each is dead code, or a name its module uses alone and need not export. `npm test` runs it before
// the tests. The project folder is the argument, this repository by default.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
const configFile = ts.readConfigFile(path.join(root, 'tsconfig.json'), (file) => ts.sys.readFile(file));
const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
const program = ts.createProgram(parsed.fileNames, parsed.options);
const checker = program.getTypeChecker();

const resolve = (symbol: ts.Symbol): ts.Symbol =>
  symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
const used = new Set<ts.Symbol>();
const useAllOf = (specifier: ts.Expression): void => {
  const module = checker.getSymbolAtLocation(specifier);
  if (module) for (const symbol of checker.getExportsOfModule(module)) used.add(resolve(symbol));
};

const ownFiles = program
  .getSourceFiles()
  .filter((file) => !file.isDeclarationFile && !file.fileName.includes('/node_modules/'));
for (const file of ownFiles) {
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
      if (ts.isImportDeclaration(node) && node.importClause?.name) {
        const symbol = checker.getSymbolAtLocation(node.importClause.name);
        if (symbol) used.add(resolve(symbol));
      }
      if (bindings && (ts.isNamedImports(bindings) || ts.isNamedExports(bindings))) {
        for (const element of bindings.elements) {
          const symbol = checker.getSymbolAtLocation(element.name);
          if (symbol) used.add(resolve(symbol));
        }
      } else if (
        node.moduleSpecifier &&
        (!bindings || ts.isNamespaceImport(bindings) || ts.isNamespaceExport(bindings))
      ) {
        // `import * as x`, `export * from`: every export counts as used.
        if (!ts.isImportDeclaration(node) || bindings) useAllOf(node.moduleSpecifier);
      }
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) {
      useAllOf(node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

const unused: string[] = [];
for (const file of ownFiles) {
  const relative = path.relative(root, file.fileName);
  if (!relative.startsWith('src/') || relative.endsWith('.test.ts') || relative === 'src/main.ts') continue;
  const module = checker.getSymbolAtLocation(file);
  if (!module) continue;
  for (const symbol of checker.getExportsOfModule(module)) {
    if (!used.has(resolve(symbol))) unused.push(`${relative}: ${symbol.getName()}`);
  }
}
if (unused.length === 0) {
  console.log('dead exports: none');
} else {
  console.error(
    `dead exports (${unused.length}): exported from src/ and imported nowhere; delete them, or drop \`export\` where only their module uses them\n  ${unused.sort().join('\n  ')}`,
  );
  process.exitCode = 1;
}
