// The /docs page: Swagger UI, served from our own routes (nothing from other hosts; the page's CSP says so too),
// plus a plugin that honours the document's display extensions:
//   x-hideTryItPanel: true  → no "Try it out" on that operation
//   x-badges: [{ name, color }] → badges beside the operation's path (stability, deprecation)
//   x-docs-hidden: true     → not listed: the HEAD and OPTIONS twins every path has stay in the document, not in the list
(function () {
  "use strict";

  var PetstoreExtensions = function (system) {
    var h = system.React.createElement;
    // From the document as loaded: an operation's resolved subtree stays empty until it is expanded.
    var opField = function (operationProps, name) {
      if (!operationProps || !operationProps.get) return undefined;
      var path = operationProps.get("path");
      var method = operationProps.get("method");
      return system.specSelectors.specJson().getIn(["paths", path, method, name]);
    };
    var listed = function (op) {
      return op.getIn(["operation", "x-docs-hidden"]) !== true;
    };
    return {
      statePlugins: {
        spec: {
          wrapSelectors: {
            // What the operation list renders: tag → { tagDetails, operations }. The selector may hand back a function
            // of the system (Swagger UI calls it), so both forms are filtered.
            taggedOperations: function (original) {
              var unlisted = function (tagged) {
                return tagged.map(function (tag) {
                  return tag.update("operations", function (operations) {
                    return operations.filter(listed);
                  });
                });
              };
              return function () {
                var result = original.apply(null, arguments);
                return typeof result === "function"
                  ? function (system) {
                      return unlisted(result(system));
                    }
                  : unlisted(result);
              };
            },
          },
        },
      },
      wrapComponents: {
        operation: function (Original) {
          return function (props) {
            if (opField(props.operation, "x-hideTryItPanel") !== true) return h(Original, props);
            var operation = props.operation.set("allowTryItOut", false).set("tryItOutEnabled", false);
            return h(Original, Object.assign({}, props, { operation: operation, allowTryItOut: false }));
          };
        },
        OperationSummaryPath: function (Original) {
          return function (props) {
            var badges = opField(props.operationProps, "x-badges");
            if (!badges || !badges.map) return h(Original, props);
            return h(
              "span",
              { className: "petstore-path-with-badges", style: { display: "inline-flex", alignItems: "center" } },
              h(Original, props),
              badges
                .map(function (badge, i) {
                  return h(
                    "span",
                    {
                      key: i,
                      className: "petstore-badge",
                      "data-badge": badge.get("name"),
                      style: { background: badge.get("color") || "#555" },
                    },
                    badge.get("name"),
                  );
                })
                .toArray(),
            );
          };
        },
      },
    };
  };

  // Either rendering of the public document; the choice lasts for the tab's session.
  var documents = ["/openapi.json", "/openapi-3.1.json"];
  var chosen = null;
  try {
    chosen = window.sessionStorage.getItem("petstore-docs-document");
  } catch {
    // storage may be refused (private modes): the 3.0.3 document then
  }
  var url = documents.indexOf(chosen) >= 0 ? chosen : documents[0];
  var buttons = document.querySelectorAll(".petstore-documents button");
  var mark = function (current) {
    buttons.forEach(function (button) {
      button.setAttribute("aria-pressed", String(button.getAttribute("data-document") === current));
    });
  };
  buttons.forEach(function (button) {
    button.addEventListener("click", function () {
      var next = button.getAttribute("data-document");
      mark(next);
      try {
        window.sessionStorage.setItem("petstore-docs-document", next);
      } catch {
        // not remembered; shown all the same
      }
      window.ui.specActions.updateUrl(next);
      window.ui.specActions.download(next);
    });
  });
  mark(url);

  window.ui = window.SwaggerUIBundle({
    url: url,
    dom_id: "#swagger-ui",
    deepLinking: true,
    layout: "BaseLayout",
    presets: [window.SwaggerUIBundle.presets.apis],
    plugins: [PetstoreExtensions],
    validatorUrl: null, // the default badge would load from validator.swagger.io
    showExtensions: true,
    displayOperationId: true,
    displayRequestDuration: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 1,
    tryItOutEnabled: false,
    persistAuthorization: false,
  });
})();
