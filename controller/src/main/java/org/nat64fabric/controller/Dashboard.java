package org.nat64fabric.controller;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;

/**
 * The web dashboard's files at {@value #PATH}: its page, script and style from the class path's
 * {@code dashboard/}, and Chart.js from its WebJar. They hold no data and no secret, so they are
 * served without credentials: the page asks for the API's credentials and every request it makes for
 * data goes through the REST API's HTTP Basic authentication, as any client's does. A strict
 * Content-Security-Policy lets the page run only these scripts and only talk to this server.
 */
final class Dashboard implements HttpHandler {
    static final String PATH = "/dashboard/";
    private static final String CHART_JS = "lib/chart.umd.min.js";
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8");
    private static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            + "connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

    private final String chartJs;   // the WebJar's resource, whose path names its version

    Dashboard() throws IOException {
        Properties webjar = new Properties();
        try (InputStream in = resource("META-INF/maven/org.webjars.npm/chart.js/pom.properties")) {
            if (in == null) {
                throw new IOException("the Chart.js WebJar is not on the class path (controller/target/lib)");
            }
            webjar.load(in);
        }
        chartJs = "META-INF/resources/webjars/chart.js/" + webjar.getProperty("version") + "/dist/chart.umd.min.js";
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try {
            String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                send(exchange, 405, "text/plain; charset=utf-8", "only GET and HEAD\n".getBytes(StandardCharsets.UTF_8));
                return;
            }
            String name = exchange.getRequestURI().getPath().substring(PATH.length());
            byte[] body = load(name.isEmpty() ? "index.html" : name);
            if (body == null) {
                send(exchange, 404, "text/plain; charset=utf-8", ("no such file: " + PATH + name.replaceAll("[^\\w./-]", "?")
                        + "\n").getBytes(StandardCharsets.UTF_8));
                return;
            }
            send(exchange, 200, TYPES.get(name.isEmpty() ? "html" : name.substring(name.lastIndexOf('.') + 1)), body);
        } finally {
            exchange.close();
        }
    }

    /** A file of the dashboard, or null: only these names, so no path can reach elsewhere in the class path. */
    private byte[] load(String name) throws IOException {
        String path = name.equals(CHART_JS) ? chartJs
                : name.matches("[a-z]+\\.(html|js|css)") ? "dashboard/" + name : null;
        if (path == null) {
            return null;
        }
        try (InputStream in = resource(path)) {
            return in == null ? null : in.readAllBytes();
        }
    }

    private static InputStream resource(String path) {
        return Dashboard.class.getClassLoader().getResourceAsStream(path);
    }

    private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        var headers = exchange.getResponseHeaders();
        headers.set("Content-Type", type);
        headers.set("Content-Security-Policy", POLICY);
        headers.set("X-Content-Type-Options", "nosniff");
        headers.set("Referrer-Policy", "no-referrer");
        headers.set("Cache-Control", "no-cache");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
