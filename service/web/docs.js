// /docs: Swagger UI on the service's own openapi.yaml. A file, not an inline script: the pages'
// Content-Security-Policy runs only the service's own script files (service/browser_policy.py).
window.ui = window.SwaggerUIBundle({ url: "/openapi.yaml", dom_id: "#swagger-ui" });
