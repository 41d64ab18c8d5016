package org.nat64fabric.core.rest;

import java.io.IOException;
import java.io.InputStream;
import javax.ws.rs.container.ContainerRequestContext;
import javax.ws.rs.container.ContainerRequestFilter;
import javax.ws.rs.container.PreMatching;
import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import org.nat64fabric.core.ConfigException;

/**
 * What the API reads of a request before anything else: a body of at most 1 MiB (its bodies are a
 * few hundred bytes), and a Content-Type it can read. A request that declares more is answered 413
 * without being parsed; one that sends more without saying so (chunked) is cut off by {@link #read}
 * once it passes the limit. Up to {@link #SWALLOW} bytes more are read and dropped first, so that
 * the client can read the answer. A body without a Content-Type, or with a wildcard or a charset
 * other than UTF-8 there, is answered 415, one whose Content-Type or Content-Length cannot be read
 * 400, each naming the header.
 */
@PreMatching
public final class RequestLimits implements ContainerRequestFilter {
    public static final int MAX_BODY = 1 << 20;
    private static final String TOO_LARGE = "the body is larger than " + MAX_BODY + " bytes (1 MiB)";

    /** A body over the limit: answered 413. */
    static final class TooLarge extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TooLarge() {
            super(TOO_LARGE);
        }
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String declared = request.getHeaderString(HttpHeaders.CONTENT_LENGTH);
        long length;
        try {
            length = declared == null ? -1 : Long.parseLong(declared.trim());
        } catch (NumberFormatException e) {
            request.abortWith(Errors.of(400, HttpHeaders.CONTENT_LENGTH, ConfigException.quote(declared)
                    + " is not a number of bytes"));
            return;
        }
        if (length > MAX_BODY) {
            // A body that fits in what is swallowed is read whole first, so that a client still
            // sending reads the 413. A longer one is not read at all: past that, reading costs more
            // than a client that may lose the answer to a reset.
            if (length <= MAX_BODY + SWALLOW) {
                try {
                    swallow(request.getEntityStream());
                } catch (IOException e) {
                    // the client went away: nobody reads the answer
                }
            }
            request.abortWith(tooLarge());
            return;
        }
        String type = request.getHeaderString(HttpHeaders.CONTENT_TYPE);
        if (type != null) {
            MediaType media;
            try {
                media = MediaType.valueOf(type);
            } catch (IllegalArgumentException e) {
                request.abortWith(Errors.of(400, HttpHeaders.CONTENT_TYPE, ConfigException.quote(type)
                        + " is not a media type: send application/json"));
                return;
            }
            String charset = media.getParameters().get(MediaType.CHARSET_PARAMETER);
            boolean body = length > 0 || request.getHeaderString("Transfer-Encoding") != null;
            if (!body) {
                return;
            }
            if (media.isWildcardType() || media.isWildcardSubtype()) {
                // RFC 9110 8.3: a body has one type; wildcards are for Accept
                request.abortWith(Errors.of(415, HttpHeaders.CONTENT_TYPE, ConfigException.quote(type)
                        + " names no one type: a body is application/json"));
            } else if (charset != null && !charset.equalsIgnoreCase("utf-8")) {
                request.abortWith(Errors.of(415, HttpHeaders.CONTENT_TYPE, "charset " + ConfigException.quote(charset)
                        + ": JSON is UTF-8 (RFC 8259 8.1)"));
            }
        } else if (length > 0 || request.getHeaderString("Transfer-Encoding") != null) {
            request.abortWith(Errors.of(415, HttpHeaders.CONTENT_TYPE, "missing: a body is application/json"));
        }
    }

    /** 413, and the connection closes, so the rest of the body, whatever the caller read of it, need not be read. */
    static Response tooLarge() {
        return Response.fromResponse(Errors.of(413, "body", TOO_LARGE)).header("Connection", "close").build();
    }

    /**
     * What is read past the limit before the 413 goes out, so that a client still sending can read
     * it: a server that closes on unread bytes resets the connection, and the client loses the
     * answer (Tomcat's maxSwallowSize does the same). A longer body is cut off.
     */
    static final int SWALLOW = 16 << 20;

    private static void swallow(InputStream body) throws IOException {
        byte[] discard = new byte[64 << 10];
        for (int left = SWALLOW, n; left > 0 && (n = body.read(discard, 0, Math.min(discard.length, left))) >= 0; ) {
            left -= n;
        }
    }

    /** Reads a whole body, at most {@link #MAX_BODY} bytes. */
    static byte[] read(InputStream body) {
        try {
            byte[] bytes = body.readNBytes(MAX_BODY + 1);
            if (bytes.length > MAX_BODY) {
                swallow(body);
                throw new TooLarge();
            }
            return bytes;
        } catch (IOException e) {
            throw new ConfigException("body", "could not be read: " + e.getMessage());
        }
    }
}
