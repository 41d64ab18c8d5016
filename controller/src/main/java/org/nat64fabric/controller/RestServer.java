package org.nat64fabric.controller;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.concurrent.Executors;
import java.util.logging.Logger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.ws.rs.Priorities;
import javax.ws.rs.Produces;
import javax.ws.rs.container.ContainerRequestContext;
import javax.ws.rs.container.ContainerRequestFilter;
import javax.ws.rs.container.PreMatching;
import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import org.glassfish.jersey.jdkhttp.JdkHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.rest.Nat64Resource;
import org.nat64fabric.core.rest.Nat64RestFeature;

/**
 * The REST API at the ONOS app's paths, on the JDK's HTTP server: HTTP Basic authentication
 * against {@link Credentials} on every request, before anything else is read of it, HTTPS when
 * given a certificate and key (PEM). {@value #THREADS} threads serve requests, and a request
 * not read in {@value #MAX_REQUEST_SECONDS} s is cut off, so that clients that connect and stall
 * hold neither more threads nor a thread for long.
 */
final class RestServer {
    private static final Logger LOG = Logger.getLogger(RestServer.class.getName());
    static final int THREADS = 16;
    static final int MAX_REQUEST_SECONDS = 30;

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
                                + "USER:PASSWORD as in " + credentials.file().toString().replace("\"", "'") + "\"}")
                        .build());
            }
        }
    }

    private RestServer() {
    }

    /** Starts the server; {@code certificate} and {@code key} are both null (HTTP) or both set (HTTPS). */
    static HttpServer start(Nat64Service service, Credentials credentials, String address, int port,
                            Path certificate, Path key) throws IOException, GeneralSecurityException {
        boolean tls = certificate != null;
        URI base = URI.create((tls ? "https" : "http") + "://" + hostForUri(address) + ":" + port + "/");
        ResourceConfig app = new ResourceConfig()
                .register(new RestApi(service))
                .register(new Authentication(credentials), Priorities.AUTHENTICATION)
                .register(Nat64RestFeature.class);
        // read by the JDK's server when it first starts one (the defaults: no limit)
        System.setProperty("sun.net.httpserver.maxReqTime", String.valueOf(MAX_REQUEST_SECONDS));
        HttpServer http = tls
                ? JdkHttpServerFactory.createHttpServer(base, app, sslContext(certificate, key), false)
                : JdkHttpServerFactory.createHttpServer(base, app, false);
        http.setExecutor(Executors.newFixedThreadPool(THREADS, r -> {
            Thread t = new Thread(r, "rest");
            t.setDaemon(true);
            return t;
        }));
        http.createContext(Dashboard.PATH, new Dashboard());
        http.start();
        if (!tls && !InetAddress.getByName(address).isLoopbackAddress()) {
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

    /** A server context from a PEM certificate chain and a PEM PKCS#8 private key (as openssl writes them). */
    static SSLContext sslContext(Path certificate, Path key) throws IOException, GeneralSecurityException {
        Certificate[] chain;
        try (InputStream in = Files.newInputStream(certificate)) {
            chain = CertificateFactory.getInstance("X.509").generateCertificates(in).toArray(new Certificate[0]);
        }
        if (chain.length == 0) {
            throw new GeneralSecurityException(certificate + ": no PEM certificate in it");
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("rest", privateKey(key), new char[0], chain);
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, new char[0]);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context;
    }

    private static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
        String pem = Files.readString(file, StandardCharsets.US_ASCII);
        String begin = "-----BEGIN PRIVATE KEY-----";
        int from = pem.indexOf(begin);
        int to = pem.indexOf("-----END PRIVATE KEY-----");
        if (from < 0 || to < from) {
            throw new GeneralSecurityException(file + ": not a PEM PKCS#8 private key (BEGIN PRIVATE KEY); convert it "
                    + "with `openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8`");
        }
        byte[] der = Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to));
        for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException notThisOne) {
                // try the next algorithm
            }
        }
        throw new GeneralSecurityException(file + ": a private key of an algorithm other than RSA, EC or Ed25519");
    }
}
