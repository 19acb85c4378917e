"""The dashboard at /_mock/ui in headless Chromium (docs/dashboard.md): the token prompt, every page without
console errors, a kill clicked in the page seen in a verified configuration, live events within a second,
funnel numbers equal to the API's, and hostile strings rendered as text with none of their script run."""

import time
import unittest
import uuid

from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as visible
from selenium.webdriver.support.ui import Select, WebDriverWait

from harness import Mock, browser, console_errors, placement_event, screenshot, verified_configuration

TOKEN = "browser-" + uuid.uuid4().hex
PAGES = {
    "workspaces": "[data-page=workspaces] section[data-workspace]",
    "live": "#live-state[data-state=live]",
    "funnels": "#funnel-output",
    "violations": "#violations-output p",
    "faults": "#fault-list",
    "clock": "#clock-now",
    "conformance": "#conformance-output p",
}


class Dashboard(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.mock = Mock(token=TOKEN)
        cls.driver = browser()

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.mock.stop()

    def wait(self, seconds=10):
        # A view redraws what it shows when an answer comes: an element read as it is replaced is read again.
        return WebDriverWait(self.driver, seconds, poll_frequency=0.02,
                             ignored_exceptions=[StaleElementReferenceException])

    def find(self, selector, seconds=10):
        return self.wait(seconds).until(visible.presence_of_element_located((By.CSS_SELECTOR, selector)))

    def open(self, page):
        """Opens a page, entering the token when the prompt asks for it."""
        self.driver.get(f"{self.mock.base}/_mock/ui#/{page}")
        self.wait().until(lambda driver: driver.execute_script(
            "return !document.getElementById('token-prompt').hidden || !!document.querySelector('[data-page]')"))
        if self.driver.find_element(By.ID, "token-prompt").is_displayed():
            self.driver.find_element(By.ID, "token-input").send_keys(TOKEN)
            self.driver.find_element(By.ID, "token-submit").click()
        return self.find(f"[data-page={page}]")

    def assert_no_script_ran(self):
        self.assertIsNone(self.driver.execute_script("return window.__pwned ?? null"))
        with self.assertRaises(NoAlertPresentException):
            self.driver.switch_to.alert.text

    def test_1_token_prompt_refuses_a_wrong_token_and_takes_the_right_one(self):
        self.driver.get(f"{self.mock.base}/_mock/ui#/clock")
        self.driver.execute_script("sessionStorage.clear()")
        self.driver.refresh()
        prompt = self.find("#token-prompt")
        self.wait().until(lambda driver: prompt.is_displayed())
        self.driver.find_element(By.ID, "token-input").send_keys("not-the-token")
        self.driver.find_element(By.ID, "token-submit").click()
        self.wait().until(lambda driver: "refused" in driver.find_element(By.ID, "token-error").text)
        self.assertTrue(prompt.is_displayed())
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "[data-page]"), [])
        self.assertIsNone(self.driver.execute_script("return sessionStorage.getItem('grona-mock-admin-token')"))
        screenshot(self.driver, "token-refused")
        self.driver.find_element(By.ID, "token-input").send_keys(TOKEN)
        self.driver.find_element(By.ID, "token-submit").click()
        self.find("#clock-now")
        self.assertFalse(prompt.is_displayed())
        self.assertNotIn(TOKEN, self.driver.current_url)
        # The API itself refuses a wrong token, whatever the page does.
        status, body = self.mock.request("GET", "/_mock/clock", token=False)
        self.assertEqual((status, body["error"]["code"]), (401, "admin_token_required"))

    def test_2_every_page_loads_without_console_errors(self):
        self.open("clock")
        console_errors(self.driver)  # The wrong token of the test before left its 401 in the console.
        for page, ready in PAGES.items():
            self.open(page)
            self.find(ready)
            errors = console_errors(self.driver)
            self.assertEqual(errors, [], f"console errors on {page}")
            screenshot(self.driver, f"page-{page}")

    def test_3_a_kill_clicked_in_the_page_is_in_the_verified_configuration(self):
        before = verified_configuration(self.mock, "acme-market")
        status = {campaign["id"]: campaign["status"] for campaign in before["campaigns"]}
        self.assertEqual(status["home-feed-picks"], "live")
        self.open("workspaces")
        row = "section[data-workspace=acme-market] tr[data-campaign=home-feed-picks]"
        self.find(f"{row} button[data-action=kill]").click()
        self.find(f"{row} td[data-status=killed]")
        after = verified_configuration(self.mock, "acme-market")
        status = {campaign["id"]: campaign["status"] for campaign in after["campaigns"]}
        self.assertEqual(status["home-feed-picks"], "killed")
        self.assertGreater(after["revision"], before["revision"])
        # The page's own check of the served configuration agrees.
        self.find("section[data-workspace=acme-market] button[data-action=verify]").click()
        self.find("section[data-workspace=acme-market] td[data-signature]")
        verdicts = {cell.text for cell in self.driver.find_elements(
            By.CSS_SELECTOR, "section[data-workspace=acme-market] td[data-signature]")}
        self.assertEqual(verdicts, {"valid"})
        self.find(f"{row} button[data-action=revive]").click()
        self.find(f"{row} td[data-status=live]")

    def test_4_posted_events_appear_in_the_live_view_within_a_second(self):
        self.open("live")
        self.find("#live-state[data-state=live]")
        install = "live-" + uuid.uuid4().hex[:8]
        self.mock.post_events("acme-market", install, [
            placement_event("exposure", f"{install}-1"),
            {"eventID": f"{install}-bad", "type": "exposure"}])
        posted = time.monotonic()
        self.wait(1).until(lambda driver: len(self.rows_mentioning(install)) == 2)
        self.assertLess(time.monotonic() - posted, 1.0)
        rows = self.rows_mentioning(install)
        rejected = [row for row in rows if row.get_attribute("data-status") == "rejected"]
        self.assertEqual(len(rejected), 1)
        self.assertIn("timestamp", rejected[0].find_element(By.CSS_SELECTOR, ".reason").text)
        accepted = [row for row in rows if row.get_attribute("data-status") == "accepted"][0]
        accepted.click()
        self.assertIn(f'"{install}-1"', self.find("#live-detail pre").text)
        # Paused, new events wait; resumed, they show.
        self.driver.find_element(By.ID, "live-pause").click()
        self.mock.post_events("acme-market", install, [placement_event("exposure", f"{install}-2")])
        self.driver.find_element(By.ID, "live-pause").click()
        self.wait(2).until(lambda driver: len(self.rows_mentioning(install)) == 3)
        screenshot(self.driver, "live")

    def rows_mentioning(self, text):
        return [row for row in self.driver.find_elements(By.CSS_SELECTOR, "#live-rows tr") if text in row.text]

    def test_5_funnel_numbers_equal_the_api(self):
        install = "funnel-" + uuid.uuid4().hex[:8]
        events = []
        for arm, variant, repeat in (("treatment", "spring", 3), ("treatment", "winter", 2), ("control", "control", 4)):
            for index in range(repeat):
                for kind in ("eligible", "anchor_visible", "exposure", "served")[: 4 if arm == "treatment" else 3]:
                    events.append(placement_event(kind, f"{install}-{variant}-{kind}-{index}", variant=variant, arm=arm))
                if index == 0 and arm == "treatment":
                    events.append(placement_event(
                        "action", f"{install}-{variant}-action", variant=variant, arm=arm,
                        action={"kind": "add", "lines": [{"productID": "sku-1", "quantity": 1}], "result": "accepted"}))
        self.mock.post_events("acme-market", install, events)
        status, api = self.mock.request("GET", "/_mock/events/funnels?workspace=acme-market")
        self.assertEqual(status, 200)
        expected = {}
        for row in api["funnels"]:
            if row["campaignID"] == "home-hero":
                counts = {step["type"]: step["count"] for step in row["steps"]}
                counts["purchase"] = row["purchases"]
                expected[(row["variantID"], row["arm"])] = counts
        self.assertEqual(len(expected), 3)
        self.open("funnels")
        self.assertEqual(Select(self.find("#funnel-workspace")).first_selected_option.text, "acme-market")
        self.wait().until(lambda driver: self.funnel_cells() == expected)
        section = self.find("#funnel-output section[data-campaign=home-hero]")
        self.assertEqual(len(section.find_elements(By.CSS_SELECTOR, "svg rect")), 12)
        # Each bar carries its value: the arm's total of the step, as the API counts it.
        labels = section.find_elements(By.CSS_SELECTOR, "svg text.value")
        self.assertEqual(len(labels), 12)
        for label in labels:
            arm, step = label.get_attribute("data-arm"), label.get_attribute("data-step")
            total = sum(counts.get(step, 0) for (_, row_arm), counts in expected.items() if row_arm == arm)
            self.assertEqual(int(label.text), total, f"{arm} {step}")
        screenshot(self.driver, "funnels")

    def funnel_cells(self):
        """What the funnels view shows for home-hero: counts by (variant, arm) and step."""
        shown = {}
        for row in self.driver.find_elements(By.CSS_SELECTOR, "#funnel-output section[data-campaign=home-hero] tr[data-variant]"):
            shown[(row.get_attribute("data-variant"), row.get_attribute("data-arm"))] = {
                cell.get_attribute("data-step"): int(cell.get_attribute("data-count"))
                for cell in row.find_elements(By.CSS_SELECTOR, "td[data-step]")}
        return shown

    def test_6_hostile_strings_render_as_text_and_run_nothing(self):
        payload = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
        self.open("workspaces")
        hostile = self.find("section[data-workspace=hostile] tr[data-campaign=html-in-copy]")
        self.assertIn("<b>HTML</b> in every copy field <img src=x onerror=alert(1)>", hostile.text)
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "main img, main script:not([src]), main iframe"), [])
        self.find("section[data-workspace=hostile] button[data-action=verify]").click()
        configuration = self.find("section[data-workspace=hostile] .configuration pre")
        self.assertIn("<script>alert(document.cookie)</script>", configuration.text)
        self.assert_no_script_ran()
        screenshot(self.driver, "hostile-workspace")

        self.open("live")
        self.find("#live-state[data-state=live]")
        install = "hostile-" + uuid.uuid4().hex[:8]
        self.mock.post_events("hostile", install, [
            placement_event("exposure", f"{install}-1", campaign="html-in-copy", variant="html", note=payload),
            {"eventID": payload, "type": payload}])
        self.wait(2).until(lambda driver: len(self.rows_mentioning(install)) == 2)
        for row in self.rows_mentioning(install):
            row.click()
            self.assertIn("window.__pwned", self.find("#live-detail pre").text)
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "main img, main script:not([src]), main iframe"), [])
        self.assert_no_script_ran()
        screenshot(self.driver, "hostile-live")

    def test_7_faults_and_clock_from_their_forms(self):
        self.open("faults")
        Select(self.find("#fault-endpoint")).select_by_value("config")
        Select(self.find("#fault-kind")).select_by_value("status")
        self.driver.find_element(By.ID, "fault-add").click()
        self.find("#fault-list tr[data-fault]")
        status, listing = self.mock.request("GET", "/_mock/faults")
        self.assertEqual([rule["endpoint"] for rule in listing["faults"]], ["config"])
        self.find("#fault-list button[data-action=remove]").click()
        self.wait().until(lambda driver: not driver.find_elements(By.CSS_SELECTOR, "#fault-list tr[data-fault]"))
        self.assertEqual(self.mock.request("GET", "/_mock/faults")[1]["faults"], [])

        self.open("clock")
        self.find("#clock-freeze").click()
        self.find("#clock-frozen[data-frozen=true]")
        before = int(self.find("#clock-now").get_attribute("data-now"))
        self.driver.find_element(By.ID, "clock-advance").click()
        self.wait().until(lambda driver: int(driver.find_element(By.ID, "clock-now").get_attribute("data-now")) == before + 3_600_000)
        self.assertEqual(self.mock.request("GET", "/_mock/clock")[1]["now"], before + 3_600_000)
        self.driver.find_element(By.ID, "clock-reset").click()
        self.find("#clock-frozen[data-frozen=false]")

    def test_8_a_violation_links_to_its_events(self):
        install = "violation-" + uuid.uuid4().hex[:8]
        # An action in a visit where nothing was served: action_without_served.
        self.mock.post_events("acme-market", install, [placement_event(
            "action", f"{install}-action", action={"kind": "add", "lines": [{"productID": "sku-1", "quantity": 1}],
                                                   "result": "accepted"})])
        status, answer = self.mock.request("GET", "/_mock/events/violations?workspace=acme-market")
        self.assertEqual(status, 200)
        ours = [violation for violation in answer["violations"] if f"{install}-action" in violation["eventIDs"]]
        # (The install was not assigned to that variant either: wrong_assignment too.)
        self.assertIn("action_without_served", [violation["rule"] for violation in ours])
        ours = [violation for violation in ours if violation["rule"] == "action_without_served"]
        self.open("violations")
        Select(self.find("#violations-workspace")).select_by_value("acme-market")
        button = self.find(f"#violations-output tr[data-rule=action_without_served] button[data-sequence='{ours[0]['events'][0]}']")
        button.click()
        self.wait().until(lambda driver: f'"{install}-action"' in driver.find_element(By.ID, "violation-event").text)
        self.assertEqual(console_errors(self.driver), [])
        screenshot(self.driver, "violations")

    def test_9a_funnels_compare_the_holdout_and_a_stale_token_brings_the_prompt_back(self):
        install = "holdout-" + uuid.uuid4().hex[:8]
        campaign = "holdout-" + uuid.uuid4().hex[:6]
        events = [placement_event(kind, f"{install}-{arm}-{kind}", campaign=campaign, variant=variant, arm=arm)
                  for arm, variant, kinds in (("treatment", "spring", ("eligible", "anchor_visible", "exposure")),
                                              ("control", "control", ("eligible", "anchor_visible")),
                                              ("holdout", "control", ("eligible",)))
                  for kind in kinds]
        self.mock.post_events("acme-market", install, events)
        self.open("funnels")
        section = f"#funnel-output section[data-campaign='{campaign}']"
        self.find(section)
        totals = {row.get_attribute("data-arm-total"): int(row.find_element(
            By.CSS_SELECTOR, "td[data-step=eligible]").text) for row in self.driver.find_elements(
            By.CSS_SELECTOR, f"{section} tr[data-arm-total]")}
        self.assertEqual(totals, {"treatment": 1, "control": 1, "holdout": 1})
        self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, f"{section} svg rect")), 18)
        # The server now wants another token (restarted with one): Refresh asks for it, with no uncaught error.
        console_errors(self.driver)
        self.driver.execute_script("sessionStorage.setItem('grona-mock-admin-token', 'stale')")
        self.find("#funnel-refresh").click()
        self.wait().until(lambda driver: driver.find_element(By.ID, "token-prompt").is_displayed())
        self.assertEqual([entry for entry in console_errors(self.driver) if entry.get("source") == "javascript"], [])
        self.open("funnels")

    def test_9b_a_narrow_window_scrolls_no_page_sideways_and_live_rows_open_by_keyboard(self):
        self.driver.set_window_size(420, 900)
        try:
            self.post_funnel_events()
            for page, ready in PAGES.items():
                self.open(page)
                self.find(ready)
                if page == "funnels":
                    self.find("#funnel-output section[data-campaign] svg")
                overflow = self.driver.execute_script(
                    "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
                screenshot(self.driver, f"narrow-{page}")
                self.assertLessEqual(overflow, 0, f"{page} scrolls sideways in a narrow window")
        finally:
            self.driver.set_window_size(1400, 1000)
        self.open("live")
        self.find("#live-state[data-state=live]")
        install = "keyboard-" + uuid.uuid4().hex[:8]
        self.mock.post_events("acme-market", install, [placement_event("exposure", f"{install}-1")])
        self.wait(2).until(lambda driver: len(self.rows_mentioning(install)) == 1)
        self.rows_mentioning(install)[0].send_keys(Keys.ENTER)
        self.assertIn(f'"{install}-1"', self.find("#live-detail pre").text)

    def test_9c_leaving_the_live_view_before_it_loaded_leaves_no_stream_open(self):
        self.open("workspaces")
        # Every live stream the page opens, by its abort signal.
        self.driver.execute_script("""
            window.__streams = [];
            const original = window.fetch;
            window.fetch = (url, init = {}) => {
              if (String(url).includes('/_mock/events/live')) window.__streams.push(init.signal);
              return original(url, init);
            };""")
        for _ in range(5):
            # A QA engineer clicking Live events, then another view before it has loaded.
            self.driver.execute_script(
                "location.hash = '#/live'; setTimeout(() => { location.hash = '#/clock'; }, 0);")
            self.find("[data-page=clock] #clock-now")
            self.driver.execute_script("location.hash = '#/workspaces';")
            self.find("[data-page=workspaces] section[data-workspace]")
        self.wait().until(lambda driver: driver.execute_script("return window.__streams.length") > 0)
        open_streams = self.driver.execute_script("return window.__streams.filter((signal) => !signal.aborted).length")
        self.assertEqual(open_streams, 0, "a live stream outlived its view")

    def post_funnel_events(self):
        install = "narrow-" + uuid.uuid4().hex[:8]
        self.mock.post_events("acme-market", install, [
            placement_event(kind, f"{install}-{kind}") for kind in ("eligible", "anchor_visible", "exposure")])


if __name__ == "__main__":
    unittest.main(verbosity=2)
