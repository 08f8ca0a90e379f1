// Copies what tsc does not emit into dist/: the SVG icons (dist/icons, referenced as
// file:../../icons/… by the nodes and file:../icons/… by the credential) and the codex files
// (<Node>.node.json next to each compiled node).
const { src, dest, parallel } = require('gulp');

function copyIcons() {
	return src('icons/*.svg').pipe(dest('dist/icons'));
}

function copyCodex() {
	return src('nodes/**/*.node.json').pipe(dest('dist/nodes'));
}

exports.build = parallel(copyIcons, copyCodex);
exports.default = exports.build;
