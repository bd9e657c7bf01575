package dev.fencedlock.examples.inventory;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FencingHeader;
import dev.fencedlock.FencingTokenCheck;
import dev.fencedlock.jdbc.FenceRowBusyException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The shipping service's HTTP interface. {@code POST /shipments} with a form body {@code
 * sku=...&order=...} ships an order: the call's {@value FencingHeader#NAME} header must carry a
 * token of the SKU's lock ({@code inventory:<sku>}), which {@link FencingTokenCheck} checks and
 * {@link ShippingDatabase#ship} fences the write with, in this service's own fence table. Answers:
 *
 * <ul>
 *   <li>201 shipped; 200 the order had been shipped before (nothing written);
 *   <li>409 the token is older than one this service has already accepted for the lock (a stale
 *       holder's call); nothing written;
 *   <li>428 no token for the lock; 403 a token not taken as granted; 400 a malformed header or body;
 *   <li>503 with {@code Retry-After: 1} when an older call of the lock held the fence row for the
 *       whole bound.
 * </ul>
 *
 * <p>Refusals are RFC 9457 problem details ({@link ProblemDetails}). {@code GET /shipments} lists the
 * shipped orders, one {@code <sku> <order token>} line each; {@code GET /refusals} the stale calls
 * refused, one {@code <lock> <presented token> <newer token>} line each. Thread-safe.
 */
final class ShipmentsHandler implements HttpHandler {
    private static final int MAX_BODY = 4096;

    private final ShippingDatabase database;
    private final FencingTokenCheck check;
    private final Duration bound;
    private final Queue<String> refusals = new ConcurrentLinkedQueue<>();

    ShipmentsHandler(ShippingDatabase database, FencingTokenCheck check, Duration bound) {
        this.database = database;
        this.check = check;
        this.bound = bound;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try {
            String path = exchange.getRequestURI().getPath();
            String method = exchange.getRequestMethod();
            if (path.equals("/shipments") && method.equals("POST")) {
                ship(exchange);
            } else if (path.equals("/shipments") && method.equals("GET")) {
                list(exchange);
            } else if (path.equals("/refusals") && method.equals("GET")) {
                sendText(exchange, 200, String.join("", refusals));
            } else {
                sendProblem(
                        exchange,
                        ProblemDetails.of(
                                404, "not-found", "Not Found", method + " " + path + " is not part of this service"));
            }
        } finally {
            exchange.close();
        }
    }

    private void ship(HttpExchange exchange) throws IOException {
        OrderKey order;
        try {
            order = orderOf(readBody(exchange.getRequestBody()));
        } catch (IllegalArgumentException e) {
            sendProblem(exchange, ProblemDetails.of(400, "bad-shipment", "Bad shipment", e.getMessage()));
            return;
        }
        String lockName = OrderPlacer.lockName(order.sku());
        long token;
        try {
            token = check.tokenFor(lockName, headerValue(exchange));
        } catch (IllegalArgumentException malformed) {
            sendProblem(
                    exchange,
                    ProblemDetails.of(
                            400, "malformed-fencing-token", "Malformed Fencing-Token header", malformed.getMessage()));
            return;
        } catch (FenceRefusedException refused) {
            refuse(exchange, refused);
            return;
        }
        try {
            boolean created = database.ship(lockName, token, bound, order);
            sendText(exchange, created ? 201 : 200, order.sku() + " " + order.token() + "\n");
        } catch (FenceRefusedException refused) {
            refuse(exchange, refused);
        } catch (FenceRowBusyException busy) {
            exchange.getResponseHeaders().set("Retry-After", "1");
            sendProblem(exchange, ProblemDetails.of(503, "fence-row-busy", "Fence row busy", busy.getMessage()));
        } catch (SQLException e) {
            sendProblem(exchange, ProblemDetails.of(500, "database-failure", "Database failure", e.toString()));
        }
    }

    private void refuse(HttpExchange exchange, FenceRefusedException refused) throws IOException {
        switch (refused.reason()) {
            case NEWER_TOKEN_REGISTERED, NEWER_TOKEN_READ, ENDED_BY_DATABASE -> {
                refusals.add(refused.lockName() + " " + refused.token() + " "
                        + (refused.newerToken().isPresent()
                                ? Long.toString(refused.newerToken().getAsLong())
                                : "-")
                        + "\n");
                sendProblem(exchange, ProblemDetails.refusal(409, "Stale fencing token", refused));
            }
            case TOKEN_NOT_PRESENTED ->
                sendProblem(exchange, ProblemDetails.refusal(428, "Fencing token required", refused));
            case TOKEN_NOT_TRUSTED ->
                sendProblem(exchange, ProblemDetails.refusal(403, "Fencing token not trusted", refused));
            default -> sendProblem(exchange, ProblemDetails.refusal(500, "Unexpected refusal", refused));
        }
    }

    /** The header's lines joined with {@code ", "}, as one list; null when the header is absent. */
    private static String headerValue(HttpExchange exchange) {
        List<String> lines = exchange.getRequestHeaders().get(FencingHeader.NAME);
        return lines == null || lines.isEmpty() ? null : String.join(", ", lines);
    }

    private static OrderKey orderOf(String body) {
        Map<String, String> fields = new HashMap<>();
        for (String pair : body.split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0) {
                fields.put(
                        URLDecoder.decode(pair.substring(0, equals), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
            }
        }
        String sku = fields.get("sku");
        String order = fields.get("order");
        if (sku == null || !sku.matches("[A-Za-z0-9_-]{1,64}")) {
            throw new IllegalArgumentException("sku must be 1 to 64 letters, digits, '_' or '-', got " + sku);
        }
        if (order == null || !order.matches("[0-9]{1,19}")) {
            throw new IllegalArgumentException("order must be the token of the sale, got " + order);
        }
        try {
            return new OrderKey(sku, Long.parseLong(order));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("order is larger than " + Long.MAX_VALUE + ": " + order);
        }
    }

    private void list(HttpExchange exchange) throws IOException {
        StringBuilder text = new StringBuilder();
        try {
            for (OrderKey shipment : database.shipments()) {
                text.append(shipment.sku()).append(' ').append(shipment.token()).append('\n');
            }
        } catch (SQLException e) {
            sendProblem(exchange, ProblemDetails.of(500, "database-failure", "Database failure", e.toString()));
            return;
        }
        sendText(exchange, 200, text.toString());
    }

    private static String readBody(InputStream in) throws IOException {
        byte[] body = in.readNBytes(MAX_BODY + 1);
        if (body.length > MAX_BODY) {
            throw new IllegalArgumentException("the body exceeds " + MAX_BODY + " bytes");
        }
        return new String(body, StandardCharsets.UTF_8);
    }

    private static void sendText(HttpExchange exchange, int status, String text) throws IOException {
        send(exchange, status, "text/plain; charset=utf-8", text);
    }

    private static void sendProblem(HttpExchange exchange, ProblemDetails problem) throws IOException {
        send(exchange, problem.status(), ProblemDetails.CONTENT_TYPE, problem.toJson());
    }

    private static void send(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
