// fflate's synchronous inflate (MIT, https://github.com/101arrowz/fflate), bundled into the
// package at build time (pkg-js/build.mjs) so the package has no runtime dependency and loads
// as a plain `<script type="module">` without an import map. The core's bytes ship deflated.
export { inflateSync } from 'fflate';
