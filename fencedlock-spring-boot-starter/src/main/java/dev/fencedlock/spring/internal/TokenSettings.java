package dev.fencedlock.spring.internal;

import dev.fencedlock.FencingKey;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The {@code fencedlock.token.*} keys of the {@code Fencing-Token} header's senders: whether
 * outbound calls carry it, and the key they sign it with. Stateless and thread-safe.
 */
final class TokenSettings {
    /** Whether outbound calls carry the header for the leases bound to the thread; default true. */
    public static final String PROPAGATE = "fencedlock.token.propagate";

    /** The id of the key senders sign with; set together with {@value #SIGNING_KEY}. */
    public static final String SIGNING_KEY_ID = "fencedlock.token.signing-key-id";

    /** The secret of the key senders sign with, in base64 (at least 32 bytes). */
    public static final String SIGNING_KEY = "fencedlock.token.signing-key";

    /** The keys read here. */
    public static final List<String> SENDER_KEYS = List.of(PROPAGATE, SIGNING_KEY_ID, SIGNING_KEY);

    private TokenSettings() {}

    /**
     * The value of {@value #PROPAGATE}: {@code true} or {@code false}, in any case; true when unset.
     *
     * @throws IllegalArgumentException naming the key for any other value
     */
    public static boolean propagate(Environment environment) {
        String value = Binder.get(environment).bind(PROPAGATE, String.class).orElse("true");
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(PROPAGATE + " must be true or false, got '" + value + "'");
        };
    }

    /**
     * The key of {@value #SIGNING_KEY_ID} and {@value #SIGNING_KEY}; empty when neither is set.
     *
     * @throws IllegalArgumentException naming the keys when only one is set, the id is not 1 to 64
     *     printable ASCII characters, or the secret is not base64 or shorter than 32 bytes (the
     *     message never holds the secret)
     */
    public static Optional<FencingKey> signingKey(Environment environment) {
        Binder binder = Binder.get(environment);
        Optional<String> id = Optional.ofNullable(
                binder.bind(SIGNING_KEY_ID, String.class).map(String::strip).orElse(null));
        Optional<String> secret =
                Optional.ofNullable(binder.bind(SIGNING_KEY, String.class).orElse(null));
        if (id.isEmpty() && secret.isEmpty()) {
            return Optional.empty();
        }
        if (id.isEmpty() || secret.isEmpty()) {
            throw new IllegalArgumentException(SIGNING_KEY_ID + " and " + SIGNING_KEY + " are set together, got "
                    + (id.isEmpty() ? SIGNING_KEY : SIGNING_KEY_ID) + " alone");
        }
        try {
            return Optional.of(FencingKey.ofBase64(id.get(), secret.get()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(SIGNING_KEY_ID + "/" + SIGNING_KEY + ": " + e.getMessage(), e);
        }
    }
}
