package dev.fencedlock.spring.internal;

import dev.fencedlock.LockConfig;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Reads every {@code fencedlock.*} property of a Spring {@link Environment} and hands them to {@link
 * LockConfig#fromMap}, which validates them and names the key of a bad or unknown one.
 *
 * <p>Two Spring idioms are mapped back to the library's keys: a YAML list ({@code nodes: [a, b]})
 * becomes the comma-separated value, and an environment variable ({@code
 * FENCEDLOCK_REDLOCK_NODE_TIMEOUT}) is matched to the known key it spells. Nothing else is changed:
 * a misspelt key stays misspelt and is rejected.
 */
public final class SpringLockConfig {
    private static final String PREFIX = "fencedlock";
    /** A list element as the binder names it: {@code nodes[0]}, or {@code nodes.0} for map keys. */
    private static final Pattern LIST_ELEMENT = Pattern.compile("^(.*)(?:\\[(\\d+)]|\\.(\\d+))$");

    private SpringLockConfig() {}

    /**
     * @throws IllegalArgumentException as {@link LockConfig#fromMap} does
     */
    public static LockConfig from(Environment environment) {
        return LockConfig.fromMap(properties(environment));
    }

    /** The {@code fencedlock.*} properties, full keys, as the library spells them. */
    static Map<String, String> properties(Environment environment) {
        Map<String, String> bound = Binder.get(environment)
                .bind(PREFIX, Bindable.mapOf(String.class, String.class))
                .orElseGet(Map::of);
        Map<String, TreeMap<Integer, String>> lists = new TreeMap<>();
        Map<String, String> result = new TreeMap<>();
        for (Map.Entry<String, String> entry : bound.entrySet()) {
            String key = PREFIX + "." + entry.getKey();
            Matcher element = LIST_ELEMENT.matcher(key);
            if (element.matches()) {
                lists.computeIfAbsent(canonical(element.group(1)), k -> new TreeMap<>())
                        .put(
                                Integer.parseInt(element.group(2) != null ? element.group(2) : element.group(3)),
                                entry.getValue());
            } else {
                result.put(canonical(key), entry.getValue());
            }
        }
        lists.forEach((key, elements) -> result.put(key, String.join(",", elements.values())));
        return result;
    }

    private static String canonical(String key) {
        if (LockConfig.keys().contains(key)) {
            return key;
        }
        String variable = LockConfig.environmentVariable(key);
        return LockConfig.keys().stream()
                .filter(known -> LockConfig.environmentVariable(known).equals(variable))
                .findFirst()
                .orElse(key);
    }
}
