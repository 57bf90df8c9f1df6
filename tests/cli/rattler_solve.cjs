// tests/cli/rattler_solve.cjs: one conda solve with rattler (@conda-org/rattler, WebAssembly), for
// t-conda-rattler.sh. usage: node rattler_solve.cjs RATTLER_DIR PLATFORM CHANNEL_URL... -- SPEC...
// Prints the solution as JSON lines {"name", "version", "build", "url"}, sorted by name; exit 1 and
// the solver's message on stderr when there is none. rattler reads each channel over http (also
// 127.0.0.1) and knows no virtual packages: the test serves __cuda/__glibc as ordinary packages.
const path = require("path");
const [dir, platform, ...rest] = process.argv.slice(2);
const cut = rest.indexOf("--");
const channels = rest.slice(0, cut), specs = rest.slice(cut + 1);
const { simpleSolve } = require(path.join(dir, "node_modules", "@conda-org", "rattler", "dist", "rattler.node.cjs"));
simpleSolve(specs, channels, [platform, "noarch"]).then(
	(pkgs) => {
		const rows = pkgs.map((p) => ({ name: p.packageName, version: p.version, build: p.build, url: p.url }));
		rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
		for (const r of rows) console.log(JSON.stringify(r));
	},
	(e) => {
		console.error(String(e && e.message ? e.message : e));
		process.exit(1);
	}
);
