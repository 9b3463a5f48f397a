package io.valueguard.query;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/** Every instance: its host, streams states, and each store partition it holds with its role and lag. */
@RestController
class InstancesController {

	private final InstanceReports reports;

	InstancesController(InstanceReports reports) {
		this.reports = reports;
	}

	@GetMapping("/api/instances")
	ResponseEntity<?> instances(
			@RequestHeader(name = ForwardingHeaders.FORWARDED, required = false) @Nullable String forwardedBy) {
		return Responses.servedBy(List.of(this.reports.self()))
			.body((forwardedBy != null) ? this.reports.local() : this.reports.all());
	}

}
