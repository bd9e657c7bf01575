package dev.fencedlock.spring.internal;

import dev.fencedlock.spring.internal.FencedLockSchemaInitializer.Schema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/** Runs a migration location's {@code V<version>__*.sql} scripts in version order, without Flyway. */
final class ScriptSchema {
    private static final Pattern VERSIONED = Pattern.compile("V([0-9_.]+)__.*\\.sql");

    private ScriptSchema() {}

    static void create(Schema schema) {
        List<Resource> scripts = scripts(schema.location());
        if (scripts.isEmpty()) {
            throw new IllegalStateException("No migration scripts found at " + schema.location() + " to create "
                    + schema.table() + "; is the module that ships them on the classpath?");
        }
        new ResourceDatabasePopulator(scripts.toArray(Resource[]::new)).execute(schema.dataSource());
    }

    static List<Resource> scripts(String location) {
        String pattern = "classpath*:" + location.substring("classpath:".length()) + "/V*__*.sql";
        try {
            return Arrays.stream(new PathMatchingResourcePatternResolver().getResources(pattern))
                    .filter(resource -> resource.getFilename() != null
                            && VERSIONED.matcher(resource.getFilename()).matches())
                    .sorted(Comparator.comparing(ScriptSchema::version, ScriptSchema::compareVersions))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list " + pattern, e);
        }
    }

    private static String[] version(Resource resource) {
        Matcher matcher = VERSIONED.matcher(resource.getFilename());
        matcher.matches();
        return matcher.group(1).split("[._]");
    }

    private static int compareVersions(String[] a, String[] b) {
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            BigInteger left = i < a.length ? new BigInteger(a[i]) : BigInteger.ZERO;
            BigInteger right = i < b.length ? new BigInteger(b[i]) : BigInteger.ZERO;
            int order = left.compareTo(right);
            if (order != 0) {
                return order;
            }
        }
        return 0;
    }
}
