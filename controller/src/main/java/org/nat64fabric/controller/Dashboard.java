package org.nat64fabric.controller;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.AbstractHandler;

/**
 * The web dashboard's files at {@value #PATH}: its page, script and style from the class path's
 * {@code dashboard/}, and Chart.js from its WebJar. They hold no data and no secret, so they are
 * served without credentials: the page asks for the API's credentials and every request it makes for
 * data goes through the REST API's HTTP Basic authentication, as any client's does. A strict
 * Content-Security-Policy lets the page run only these scripts and only talk to this server.
 */
final class Dashboard extends AbstractHandler {
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

    /** Serves what is under {@value #PATH} (its own path without the slash too); leaves the rest to the API. */
    @Override
    public void handle(String target, Request base, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        if (target.equals("/favicon.ico")) {
            // a browser asks for it on its own: no icon, and no 401, whose Basic challenge opens a login dialog
            base.setHandled(true);
            send(request, response, 204, "text/plain; charset=utf-8", new byte[0]);
            return;
        }
        if (!target.startsWith(PATH) && !target.equals(PATH.substring(0, PATH.length() - 1))) {
            return;
        }
        base.setHandled(true);
        if (!target.startsWith(PATH)) {
            response.setHeader("Location", PATH);
            send(request, response, 301, "text/plain; charset=utf-8", (PATH + "\n").getBytes(StandardCharsets.UTF_8));
            return;
        }
        String method = request.getMethod();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            response.setHeader("Allow", "GET, HEAD");
            send(request, response, 405, "text/plain; charset=utf-8", "only GET and HEAD\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        String name = target.substring(PATH.length());
        byte[] body = load(name.isEmpty() ? "index.html" : name);
        if (body == null) {
            send(request, response, 404, "text/plain; charset=utf-8", ("no such file: " + PATH
                    + name.replaceAll("[^\\w./-]", "?") + "\n").getBytes(StandardCharsets.UTF_8));
            return;
        }
        send(request, response, 200, TYPES.get(name.isEmpty() ? "html" : name.substring(name.lastIndexOf('.') + 1)), body);
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

    private static void send(HttpServletRequest request, HttpServletResponse response, int status, String type,
                             byte[] body) throws IOException {
        response.setStatus(status);
        response.setHeader("Content-Type", type);
        response.setHeader("Content-Security-Policy", POLICY);
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Referrer-Policy", "no-referrer");
        response.setHeader("Cache-Control", "no-cache");
        response.setContentLength(body.length);
        if (!request.getMethod().equals("HEAD")) {
            try (OutputStream out = response.getOutputStream()) {
                out.write(body);
            }
        }
    }
}
