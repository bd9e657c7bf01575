package dev.fencedlock.spring.receiver;

import dev.fencedlock.FencingHeader;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * A caller of a receiver on a loopback port, through the JDK's {@link HttpClient}: the sending side
 * of the tests, the header set as given. Thread-safe.
 */
final class Calls {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private final String base;

    Calls(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    /** A request to {@code path}, query parameters given as name, value pairs. */
    HttpRequest.Builder post(String path, String... parameters) {
        StringBuilder uri = new StringBuilder(base).append(path);
        for (int i = 0; i < parameters.length; i += 2) {
            uri.append(i == 0 ? '?' : '&')
                    .append(parameters[i])
                    .append('=')
                    .append(URLEncoder.encode(parameters[i + 1], StandardCharsets.UTF_8));
        }
        return HttpRequest.newBuilder(URI.create(uri.toString()))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.noBody());
    }

    /** {@code request} with the header set to {@code headerValue}, sent. */
    static HttpResponse<String> send(HttpRequest.Builder request, String headerValue) {
        return send(request.header(FencingHeader.NAME, headerValue));
    }

    static HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The members of {@code response}'s problem body, after checking its media type. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> problem(HttpResponse<String> response) {
        String type = response.headers().firstValue("Content-Type").orElse("");
        if (!type.startsWith("application/problem+json")) {
            throw new AssertionError("not a problem body (" + type + "): " + response.body());
        }
        return JSON.readValue(response.body(), Map.class);
    }
}
