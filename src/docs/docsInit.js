// Starts Swagger UI on /docs. A file of its own rather than an inline script, so the page's
// Content-Security-Policy can allow scripts from this origin only.
/* global SwaggerUIBundle */
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  // The default sends the document to validator.swagger.io for a badge: nothing leaves this origin.
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
