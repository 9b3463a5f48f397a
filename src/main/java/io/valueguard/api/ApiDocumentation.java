package io.valueguard.api;

import java.util.List;
import java.util.Map;

import io.swagger.v3.core.converter.ModelConverters;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.info.License;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import io.swagger.v3.oas.models.servers.Server;
import io.valueguard.routing.ProblemTypes;
import org.springdoc.core.customizers.OpenApiCustomizer;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ProblemDetail;

/**
 * The OpenAPI document at {@code /v3/api-docs} (and Swagger UI at {@code /swagger-ui.html}): every endpoint, and
 * for each the problem answers it may give, with the problem types they carry. {@code docs/openapi.json} pins it, so
 * that the API cannot change by accident.
 */
@Configuration(proxyBeanMethods = false)
class ApiDocumentation {

	private static final String PROBLEM = "Problem";

	/** Problem types by kind, as ProblemHandler and ContainerProblemValve write them. */
	private static final Map<String, String> PROBLEM_TYPES = Map.of("unauthorized",
			"401 with WWW-Authenticate: no credentials, or credentials the API refuses (when it is secured)",
			"forbidden", "403: the credentials lack the authority this request needs, or may not use this key",
			"payload-too-large", "413: the body is larger than valueguard.limits.max-request-bytes",
			"invalid-claim",
			"400: the key or value is not a valid claim; `reason` names the rule (MISSING_KEY, KEY_TOO_LONG, "
					+ "EMPTY_VALUE, VALUE_TOO_LONG, VALUE_NOT_UTF8); nothing was produced",
			"invalid-request", "400: a parameter is out of range, or the request could not be read",
			"not-found", "404: nothing is bound to the key, or nobody owns the value",
			"store-unavailable", "503 with Retry-After: no instance could answer within the retry budget "
					+ "(rebalance, restore, a client restarting)",
			"kafka-unavailable", "503 with Retry-After: Kafka did not take the write; it will not land later");

	@Bean
	OpenAPI valueGuardApi() {
		StringBuilder types = new StringBuilder();
		PROBLEM_TYPES.entrySet()
			.stream()
			.sorted(Map.Entry.comparingByKey())
			.forEach((type) -> types.append("\n- `")
				.append(ProblemTypes.of(type.getKey()))
				.append("`: ")
				.append(type.getValue()));
		return new OpenAPI()
			.info(new Info().title("ValueGuard")
				.version("v1")
				.license(new License().name("Apache-2.0"))
				.description("Keeps every value owned by at most one key. Claims and releases go to the claims "
						+ "topic; lookups are answered by whichever instance holds the key. Every error is an "
						+ "RFC 9457 `application/problem+json` body; its `type` is one of:" + types))
			// relative: the document is the same whichever instance or port serves it
			.servers(List.of(new Server().url("/")))
			// what a secured deployment takes (docs/security.md); an open one ignores credentials
			.components(new Components()
				.addSecuritySchemes("bearer",
						new SecurityScheme().type(SecurityScheme.Type.HTTP).scheme("bearer").bearerFormat("JWT"))
				.addSecuritySchemes("basic", new SecurityScheme().type(SecurityScheme.Type.HTTP).scheme("basic")))
			.addSecurityItem(new SecurityRequirement().addList("bearer"))
			.addSecurityItem(new SecurityRequirement().addList("basic"));
	}

	/** Adds the problem answers each kind of endpoint may give, so that no controller repeats them. */
	@Bean
	OpenApiCustomizer problemAnswers() {
		return (openApi) -> {
			if (openApi.getComponents() == null) {
				openApi.setComponents(new Components());
			}
			openApi.getComponents()
				.addSchemas(PROBLEM, ModelConverters.getInstance().readAllAsResolvedSchema(ProblemDetail.class).schema);
			openApi.getPaths().forEach((path, item) -> {
				if (!path.startsWith("/api/")) {
					return;
				}
				item.readOperationsMap().forEach((method, operation) -> {
					boolean input = operation.getRequestBody() != null
							|| (operation.getParameters() != null && !operation.getParameters().isEmpty());
					if (input) {
						problem(operation, "400",
								"Invalid claim or request (problem types invalid-claim, invalid-request)");
					}
					if (method == PathItem.HttpMethod.GET && input) {
						problem(operation, "404", "Nothing bound to the key, or nobody owns the value (problem "
								+ "type not-found); lookups of one key or value only");
					}
					problem(operation, "401", "No credentials, or refused ones, when the API is secured (problem "
							+ "type unauthorized)");
					problem(operation, "403", "The credentials may not do this, or not for this key (problem type "
							+ "forbidden)");
					if (operation.getRequestBody() != null) {
						problem(operation, "413", "The body is too large (problem type payload-too-large)");
					}
					problem(operation, "503", "Unavailable, retry after the Retry-After header "
							+ "(problem types store-unavailable, kafka-unavailable)");
				});
			});
		};
	}

	private static void problem(Operation operation, String status, String description) {
		if (operation.getResponses().containsKey(status)) {
			return;
		}
		operation.getResponses()
			.addApiResponse(status, new ApiResponse().description(description)
				.content(new Content().addMediaType(org.springframework.http.MediaType.APPLICATION_PROBLEM_JSON_VALUE,
						new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + PROBLEM)))));
	}

}
