//! Reading `GET /metrics` (the Prometheus text format) as an operator's scraper would.

/// The value of the first sample of `name` whose labels include all of `labels`.
pub fn sample(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, rest) = series.split_once('{').unwrap_or((series, "}"));
            if metric != name {
                return None;
            }
            let has_all = labels
                .iter()
                .all(|(key, value)| rest.contains(&format!("{key}=\"{value}\"")));
            has_all.then(|| value.parse().ok()).flatten()
        })
}

pub fn must(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    sample(text, name, labels)
        .unwrap_or_else(|| panic!("no sample {name} {labels:?} in the metrics:\n{text}"))
}

/// Scrapes `url` (with the token when given); answers the status, content type and text.
pub async fn scrape(url: &str, token: Option<&str>) -> (u16, String, String) {
    let mut request = reqwest::Client::new().get(url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("scraping");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (
        status,
        content_type,
        response.text().await.unwrap_or_default(),
    )
}

/// The sum of every sample of `name` whose labels include all of `labels` (0 when none).
pub fn sum(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, rest) = series.split_once('{').unwrap_or((series, "}"));
            let has_all = labels
                .iter()
                .all(|(key, value)| rest.contains(&format!("{key}=\"{value}\"")));
            (metric == name && has_all).then(|| value.parse::<f64>().ok())?
        })
        .sum()
}
