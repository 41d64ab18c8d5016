package org.nat64fabric.core.rest;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;

/** The API's error answer, {@code {"field": ..., "message": ...}}, for every status it gives. */
final class Errors {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Errors() {
    }

    /**
     * With its length, not chunked: a server that closes the connection after answering a body it
     * did not read (413) has sent the whole answer by then.
     */
    static Response of(int status, String field, String message) {
        byte[] body = MAPPER.createObjectNode().put("field", field).put("message", message).toString()
                .getBytes(StandardCharsets.UTF_8);
        return Response.status(status).entity(body).type(MediaType.APPLICATION_JSON)
                .header(HttpHeaders.CONTENT_LENGTH, body.length).build();
    }
}
