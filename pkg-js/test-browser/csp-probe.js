// Classic script loaded before the module: records CSP violations, and proves the page's CSP
// is in force (string evaluation must be blocked: no 'unsafe-eval').
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI);
});
try {
  new Function('return 1')();
  window.__evalBlocked = false;
} catch (e) {
  window.__evalBlocked = true;
}
