package org.nat64fabric.controller;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.logging.Logger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.servlet.RequestDispatcher;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import javax.ws.rs.Priorities;
import javax.ws.rs.Produces;
import javax.ws.rs.container.ContainerRequestContext;
import javax.ws.rs.container.ContainerRequestFilter;
import javax.ws.rs.container.PreMatching;
import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.ConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.server.handler.HandlerList;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.glassfish.jersey.jetty.JettyHttpContainer;
import org.glassfish.jersey.server.ContainerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.rest.Nat64Resource;
import org.nat64fabric.core.rest.Nat64RestFeature;

/**
 * The REST API at the ONOS app's paths, in Jetty as ONOS serves it: HTTP Basic authentication
 * against {@link Credentials} on every request, before anything else is read of it, HTTPS when
 * given a certificate and key (PEM). Jetty reads a request's head without a thread of its own,
 * so clients that connect and stall hold none; each connection idle for {@value #IDLE_SECONDS} s
 * is closed, at most {@value #MAX_CONNECTIONS} are open at once, and {@value #THREADS} threads
 * serve the requests read.
 */
final class RestServer {
    private static final Logger LOG = Logger.getLogger(RestServer.class.getName());
    static final int THREADS = 16;
    static final int IDLE_SECONDS = 30;
    static final int MAX_CONNECTIONS = 512;
    /** Jetty's own log goes to the controller's (java.util.logging), its warnings only. */
    private static final Logger JETTY_LOG = Logger.getLogger("org.eclipse.jetty");

    static {
        System.setProperty("org.eclipse.jetty.util.log.class", "org.eclipse.jetty.util.log.JavaUtilLog");
        JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    /** The REST API at the ONOS app's paths. */
    @javax.ws.rs.Path("onos/nat64fabric")
    @Produces(MediaType.APPLICATION_JSON)
    public static final class RestApi extends Nat64Resource {
        public RestApi(Nat64Service service) {
            super(() -> service);
        }
    }

    /** Refuses a request without the credentials: 401 with a JSON body naming the header. */
    @PreMatching
    static final class Authentication implements ContainerRequestFilter {
        private final Credentials credentials;

        Authentication(Credentials credentials) {
            this.credentials = credentials;
        }

        @Override
        public void filter(ContainerRequestContext request) {
            if (!credentials.accepts(request.getHeaderString(HttpHeaders.AUTHORIZATION))) {
                // A script (the dashboard) says so with X-Requested-With: no challenge, so that a browser
                // leaves the answer to the script instead of opening its own password dialog.
                boolean script = request.getHeaderString("X-Requested-With") != null;
                request.abortWith(Response.status(Response.Status.UNAUTHORIZED)
                        .header(HttpHeaders.WWW_AUTHENTICATE, script ? null : "Basic realm=\"nat64fabric\"")
                        .type(MediaType.APPLICATION_JSON)
                        .entity("{\"field\":\"Authorization\",\"message\":\"HTTP Basic credentials required: "
                                + "the USER:PASSWORD line of the controller's STATE/rest-credentials file\"}")
                        .build());
            }
        }
    }

    /**
     * What Jetty itself refuses (a request line, URI or header it cannot read, before any handler
     * sees it) is answered as the API answers: JSON naming what was wrong, not an HTML page.
     */
    static final class JsonErrors extends ErrorHandler {
        /** Every method's refusal gets its body (Jetty writes one for GET, POST and HEAD only). */
        @Override
        public boolean errorPageForMethod(String method) {
            return true;
        }

        @Override
        public ByteBuffer badMessageError(int status, String reason, HttpFields fields) {
            fields.put(HttpHeader.CONTENT_TYPE, MediaType.APPLICATION_JSON);
            return BufferUtil.toBuffer(json(status, reason), StandardCharsets.UTF_8);
        }

        @Override
        public void handle(String target, Request base, HttpServletRequest request, HttpServletResponse response)
                throws IOException {
            base.setHandled(true);
            response.setContentType(MediaType.APPLICATION_JSON);
            Object message = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
            response.getOutputStream().write(json(response.getStatus(), message == null ? null : message.toString())
                    .getBytes(StandardCharsets.UTF_8));
        }

        private static String json(int status, String reason) {
            String message = reason == null || reason.isBlank() ? HttpStatus.getMessage(status) : reason;
            return "{\"field\":\"request\",\"message\":\"" + message.replaceAll("[^\\w .,:;/()'-]", "?") + "\"}";
        }
    }

    private RestServer() {
    }

    /** Starts the server: HTTPS with {@code tls} (sslContext), HTTP when it is null. */
    static Server start(Nat64Service service, Credentials credentials, String address, int port, SSLContext tls)
            throws IOException {
        URI base = URI.create((tls != null ? "https" : "http") + "://" + hostForUri(address) + ":" + port + "/");
        ResourceConfig app = new ResourceConfig()
                .register(new RestApi(service))
                .register(new Authentication(credentials), Priorities.AUTHENTICATION)
                .register(Nat64RestFeature.class);
        QueuedThreadPool threads = new QueuedThreadPool(THREADS + 4, 4);   // Jetty's acceptor and selector take some
        threads.setName("rest");
        threads.setDaemon(true);
        Server http = new Server(threads);
        ServerConnector connector;
        if (tls != null) {
            SslContextFactory.Server ssl = new SslContextFactory.Server();
            ssl.setSslContext(tls);
            connector = new ServerConnector(http, 1, 1, ssl);
        } else {
            connector = new ServerConnector(http, 1, 1);
        }
        connector.setHost(address);
        connector.setPort(port);
        connector.setIdleTimeout(IDLE_SECONDS * 1000L);
        http.addConnector(connector);
        http.addBean(new ConnectionLimit(MAX_CONNECTIONS, http));
        http.setHandler(new HandlerList(new Dashboard(), ContainerFactory.createContainer(JettyHttpContainer.class, app)));
        http.setErrorHandler(new JsonErrors());
        http.setStopAtShutdown(false);   // Main's shutdown hook stops it, in order
        try {
            http.start();
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e.getMessage(), e);
        }
        if (tls == null && !InetAddress.getByName(address).isLoopbackAddress()) {
            LOG.warning("the REST API listens on " + address + " without TLS: credentials and NAT state cross the "
                    + "network in clear; give --rest-tls-cert and --rest-tls-key, or bind 127.0.0.1");
        }
        LOG.info("REST API at " + base + "onos/nat64fabric/ (HTTP Basic; credentials in " + credentials.file() + ")");
        LOG.info("dashboard at " + base.resolve(Dashboard.PATH) + " (the same credentials)");
        return http;
    }

    private static String hostForUri(String address) {
        return address.contains(":") && !address.startsWith("[") ? "[" + address + "]" : address;
    }

    /**
     * A server context from a PEM certificate chain and a PEM PKCS#8 private key (as openssl writes
     * them), each checked (Pem) so that a wrong file stops the controller before it starts.
     */
    static SSLContext sslContext(Path certificate, Path key) throws IOException, GeneralSecurityException {
        Certificate[] chain = Pem.certificates("--rest-tls-cert", certificate).toArray(new Certificate[0]);
        PrivateKey privateKey = Pem.privateKey("--rest-tls-key", key);
        Pem.pair("--rest-tls-key " + key, chain[0], privateKey);
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("rest", privateKey, new char[0], chain);
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, new char[0]);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context;
    }
}
