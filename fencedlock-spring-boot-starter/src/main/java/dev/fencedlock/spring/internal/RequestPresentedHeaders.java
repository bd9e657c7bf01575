package dev.fencedlock.spring.internal;

import dev.fencedlock.FencingHeader;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The {@code Fencing-Token} header of the servlet request the current thread serves, as Spring MVC
 * exposes it ({@link RequestContextHolder}). Several header lines are joined with {@code ", "}, as
 * HTTP allows for a list. Stateless and thread-safe.
 */
final class RequestPresentedHeaders implements PresentedHeaders {

    @Override
    public Optional<Presented> current() {
        RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
        if (!(attributes instanceof ServletRequestAttributes servlet)) {
            return Optional.empty();
        }
        HttpServletRequest request = servlet.getRequest();
        Enumeration<String> headers = request.getHeaders(FencingHeader.NAME);
        List<String> lines = headers == null ? List.of() : Collections.list(headers);
        String origin = "HTTP request " + request.getMethod() + " " + request.getRequestURI();
        return Optional.of(new Presented(origin, lines.isEmpty() ? null : String.join(", ", lines)));
    }
}
