package dev.fencedlock.spring.internal;

import java.util.List;
import java.util.function.Consumer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The senders of the {@code Fencing-Token} header: customizers that Spring Boot applies to the
 * {@code RestClient.Builder}, {@code RestTemplateBuilder} and {@code WebClient.Builder} it
 * auto-configures (and to its HTTP service clients), each present only when its client is on the
 * class path, and none with {@value TokenSettings#PROPAGATE}{@code =false}. Clients built without
 * these builders carry nothing.
 */
@Configuration(proxyBeanMethods = false)
class TokenSenderConfiguration {
    /**
     * What every sender puts on its calls, signed with {@value TokenSettings#SIGNING_KEY_ID} and
     * {@value TokenSettings#SIGNING_KEY} when they are set. Made whether or not calls carry it, so
     * that a bad setting fails the start either way.
     *
     * @throws dev.fencedlock.spring.FencedLockStartupException (failing start-up) naming the key of
     *     a bad setting
     */
    @Bean
    OutboundToken fencedLockOutboundToken(Environment environment) {
        try {
            TokenSettings.propagate(environment);
            return new OutboundToken(TokenSettings.signingKey(environment).orElse(null));
        } catch (IllegalArgumentException e) {
            throw SpringLockConfig.startupFailure(e);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({RestClient.class, RestClientCustomizer.class})
    @ConditionalOnBooleanProperty(name = TokenSettings.PROPAGATE, matchIfMissing = true)
    static class RestClients {
        @Bean
        RestClientCustomizer fencedLockRestClientToken(OutboundToken token) {
            ClientHttpRequestInterceptor interceptor = new FencingTokenInterceptor(token);
            return builder -> builder.requestInterceptors(addOnce(interceptor));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({RestTemplate.class, RestTemplateCustomizer.class})
    @ConditionalOnBooleanProperty(name = TokenSettings.PROPAGATE, matchIfMissing = true)
    static class RestTemplates {
        @Bean
        RestTemplateCustomizer fencedLockRestTemplateToken(OutboundToken token) {
            ClientHttpRequestInterceptor interceptor = new FencingTokenInterceptor(token);
            return restTemplate -> addOnce(interceptor).accept(restTemplate.getInterceptors());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({WebClient.class, WebClientCustomizer.class})
    @ConditionalOnBooleanProperty(name = TokenSettings.PROPAGATE, matchIfMissing = true)
    static class WebClients {
        @Bean
        WebClientCustomizer fencedLockWebClientToken(OutboundToken token) {
            ExchangeFilterFunction filter = new FencingTokenExchangeFilter(token);
            return builder ->
                    builder.defaultRequest(FencingTokenExchangeFilter::capture).filters(addOnce(filter));
        }
    }

    /**
     * Appends {@code element} to a list of interceptors or filters unless it is there already, so a
     * customizer applied twice to one builder adds it once. Last: nearest the wire, so that a retry
     * by an interceptor or filter added before it checks the leases again.
     */
    private static <T> Consumer<List<T>> addOnce(T element) {
        return list -> {
            if (!list.contains(element)) {
                list.add(element);
            }
        };
    }
}
