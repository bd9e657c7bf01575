package dev.fencedlock.spring.internal;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FenceRefusedException.Reason;
import dev.fencedlock.FencingHeader;
import dev.fencedlock.spring.FencedWriteRefusedException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers the failures of {@code @FencedBy} calls with HTTP statuses and an RFC 9457 problem body
 * ({@code application/problem+json}), and nothing else:
 *
 * <table>
 *   <caption>Statuses</caption>
 *   <tr><th>failure</th><th>status</th></tr>
 *   <tr><td>refused: {@code NEWER_TOKEN_REGISTERED}, {@code NEWER_TOKEN_READ}, {@code ENDED_BY_DATABASE}</td><td>409</td></tr>
 *   <tr><td>refused: {@code TOKEN_NOT_PRESENTED}</td><td>428</td></tr>
 *   <tr><td>refused: {@code TOKEN_NOT_TRUSTED}</td><td>403</td></tr>
 *   <tr><td>a malformed header</td><td>400</td></tr>
 *   <tr><td>the fence row busy for the whole bound</td><td>503, {@code Retry-After: 1}</td></tr>
 * </table>
 *
 * <p>The body has {@code type} ({@code https://fencedlock.dev/problems/<kebab-case reason>}),
 * {@code title}, {@code status}, {@code detail} (the exception's message) and {@code instance}
 * (the request's path), and the members {@code reason}, {@code lockName}, {@code presentedToken}
 * and {@code newerToken} where known, tokens as strings: they exceed the integers JSON readers
 * keep exactly.
 *
 * <p>Ordered last: Spring MVC's own resolvers run first, among them the {@code @ExceptionHandler}
 * methods of controllers and {@code @ControllerAdvice} beans, so an application that handles
 * {@link FencedWriteRefusedException} (or {@link IllegalArgumentException}, or {@code
 * CannotAcquireLockException}) itself answers as it likes. Stateless and thread-safe.
 */
final class ReceiverProblems implements HandlerExceptionResolver, Ordered {
    private static final Logger LOG = LoggerFactory.getLogger(ReceiverProblems.class);
    private static final String TYPES = "https://fencedlock.dev/problems/";
    static final String MEDIA_TYPE = "application/problem+json";

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public ModelAndView resolveException(
            HttpServletRequest request, HttpServletResponse response, Object handler, Exception failure) {
        Problem problem = problemOf(failure);
        if (problem == null || response.isCommitted()) {
            return null;
        }
        problem.members.put("instance", request.getRequestURI());
        LOG.debug(
                "Answering {} {} with {}: {}",
                request.getMethod(),
                request.getRequestURI(),
                problem.status,
                problem.detail);
        try {
            // the body only: headers set before the handler ran (CORS, tracing) stay
            response.resetBuffer();
            response.setStatus(problem.status);
            response.setContentType(MEDIA_TYPE);
            response.setCharacterEncoding(StandardCharsets.UTF_8.name());
            if (problem.status == HttpServletResponse.SC_SERVICE_UNAVAILABLE) {
                response.setHeader("Retry-After", "1");
            }
            Writer body = response.getWriter();
            body.write(problem.json());
            body.flush();
        } catch (IOException | IllegalStateException e) {
            LOG.debug("Could not write the problem for {} {}", request.getMethod(), request.getRequestURI(), e);
        }
        return new ModelAndView();
    }

    /** The problem {@code failure} or one of its causes is; null when it is none of the receiver's. */
    static Problem problemOf(Throwable failure) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
            if (t instanceof PresentedTokenRefusedException refused) {
                return refused(refused);
            }
            if (t instanceof MalformedTokenHeaderException malformed) {
                return new Problem(
                                HttpServletResponse.SC_BAD_REQUEST,
                                "malformed-token-header",
                                "Malformed " + FencingHeader.NAME + " header",
                                malformed.getMessage())
                        .with("reason", "MALFORMED_TOKEN_HEADER")
                        .with("lockName", malformed.lockName());
            }
            if (t instanceof PresentedRowBusyException busy) {
                return new Problem(
                                HttpServletResponse.SC_SERVICE_UNAVAILABLE,
                                "fence-row-busy",
                                "Fence row busy",
                                busy.getMessage())
                        .with("reason", "FENCE_ROW_BUSY")
                        .with("lockName", busy.busy().lockName())
                        .with("presentedToken", Long.toString(busy.busy().token()));
            }
        }
        return null;
    }

    private static Problem refused(PresentedTokenRefusedException refused) {
        Reason reason = refused.reason();
        int status;
        String title;
        switch (reason) {
            case TOKEN_NOT_PRESENTED -> {
                status = 428;
                title = "Fencing token required";
            }
            case TOKEN_NOT_TRUSTED -> {
                status = HttpServletResponse.SC_FORBIDDEN;
                title = "Fencing token not trusted";
            }
            default -> {
                status = HttpServletResponse.SC_CONFLICT;
                title = "Stale fencing token";
            }
        }
        Problem problem = new Problem(
                        status, reason.name().toLowerCase(Locale.ROOT).replace('_', '-'), title, refused.getMessage())
                .with("reason", reason.name())
                .with("lockName", refused.lockName());
        if (refused.token() != FenceRefusedException.NO_TOKEN) {
            problem.with("presentedToken", Long.toString(refused.token()));
        }
        refused.newerToken().ifPresent(newer -> problem.with("newerToken", Long.toString(newer)));
        return problem;
    }

    /** One problem body: the standard members, then the extension members, in order. */
    static final class Problem {
        final int status;
        final String detail;
        final Map<String, Object> members = new LinkedHashMap<>();

        Problem(int status, String type, String title, String detail) {
            this.status = status;
            this.detail = detail;
            members.put("type", TYPES + type);
            members.put("title", title);
            members.put("status", status);
            members.put("detail", detail);
        }

        Problem with(String name, String value) {
            if (value != null) {
                members.put(name, value);
            }
            return this;
        }

        String json() {
            StringBuilder out = new StringBuilder("{");
            for (Map.Entry<String, Object> member : members.entrySet()) {
                if (out.length() > 1) {
                    out.append(',');
                }
                string(out, member.getKey());
                out.append(':');
                if (member.getValue() instanceof Integer number) {
                    out.append(number);
                } else {
                    string(out, String.valueOf(member.getValue()));
                }
            }
            return out.append('}').toString();
        }

        private static void string(StringBuilder out, String value) {
            out.append('"');
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    case '\t' -> out.append("\\t");
                    default -> {
                        if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                            out.append(String.format("\\u%04x", (int) c));
                        } else {
                            out.append(c);
                        }
                    }
                }
            }
            out.append('"');
        }
    }
}
